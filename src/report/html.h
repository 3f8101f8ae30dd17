// Building blocks of the HTML report: the page with its inline stylesheet,
// tables, and the number and duration formats the tables share.
#pragma once

#include "report/svg_chart.h"

#include <optional>
#include <string>
#include <vector>

namespace runner {

// A complete HTML document: <head> with the stylesheet (light and dark
// palettes under prefers-color-scheme), then `body_html`.
std::string html_page(const std::string& title, const std::string& body_html);

struct HtmlTable {
  std::string id;
  std::vector<std::string> head;               // plain text, escaped when rendered
  std::vector<std::vector<std::string>> rows;  // HTML fragments (escape plain text first)
  bool first_column_is_header = false;
};
std::string render_table(const HtmlTable& table);

// "12.3 s", "4 min 05 s", "2 h 03 min"; "" without a value.
std::string duration_text(std::optional<double> seconds);
// A metric value with 4 significant decimals, or "" without one.
std::string metric_text(std::optional<double> value);
// A colour swatch for legends and tables (palette index).
std::string swatch_html(int colour);

// A figure: one legend (each series label once, with its colour, in order of
// first appearance) above its charts in a responsive grid; the charts carry none.
std::string chart_figure_html(const std::vector<ChartSpec>& charts);

}  // namespace runner
