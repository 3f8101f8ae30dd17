// The self-contained HTML report: one file with its CSS and inline SVG charts,
// nothing fetched when it is viewed. Light and dark colour schemes follow the
// viewer's prefers-color-scheme.
#pragma once

#include "report/run_history.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace runner {

// One run, or several overlaid (labels[i] names runs[i] in legends and tables).
std::string runs_report_html(const std::vector<RunHistory>& runs, const std::vector<std::string>& labels);

// A sweep: its sweep_summary.json, and the run of each point that has one
// (point_runs[i] belongs to the point labelled point_labels[i]).
std::string sweep_report_html(const nlohmann::json& sweep_summary, const std::vector<RunHistory>& point_runs,
                              const std::vector<std::string>& point_labels);

// The overlaid charts and the recipe differences of several runs, for a page
// that has its own heading (the sweep report).
std::string runs_section_html(const std::vector<RunHistory>& runs, const std::vector<std::string>& labels);

// The points of a sweep_summary.json, best first by the sweep metric (points
// without a value last, in their order).
nlohmann::json ranked_points(const nlohmann::json& sweep_summary);

// The rank of each of ranked_points' points: "1", "2", ...; points whose best
// value is equal share the rank of the first of them, marked "=2"; a point
// without a value has its place.
std::vector<std::string> rank_labels(const nlohmann::json& ranked);

// Resolved-recipe keys ("optimizer.lr") whose values are not the same in every run,
// with each run's value as JSON text ("(absent)" where a run lacks the key).
// run.name is left out: runs differ by it trivially.
std::vector<std::pair<std::string, std::vector<std::string>>> recipe_differences(
    const std::vector<RunHistory>& runs);

// Labels for legends: the run names, made unique with the run folder's name when they repeat.
std::vector<std::string> run_labels(const std::vector<RunHistory>& runs);

}  // namespace runner
