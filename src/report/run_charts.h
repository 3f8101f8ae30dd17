// The charts of one or more runs, overlaid: training loss, learning rate,
// gradient norm, fp16 loss scale, throughput, and every evaluation metric,
// each against the x axis the runs were read with (optimizer step, samples,
// epoch or elapsed time), with each run's best checkpoint marked.
#pragma once

#include "report/run_history.h"
#include "report/svg_chart.h"

#include <string>
#include <vector>

namespace runner {

// One chart per quantity that at least one run recorded; series i of each
// chart is runs[i] (colour i, legend labels[i]).
std::vector<ChartSpec> run_charts(const std::vector<RunHistory>& runs,
                                  const std::vector<std::string>& labels);

// The eval metrics the runs recorded ("loss", "accuracy", "f1", ...), in order of first appearance.
std::vector<std::string> eval_metric_names(const std::vector<RunHistory>& runs);

}  // namespace runner
