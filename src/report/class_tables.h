// The per-class tables of a run's final evaluation in the report: precision,
// recall, F1 and support per class, and the confusion matrix, as the eval
// record holds them ("per_class", "per_label", and a companion set's
// "per_class_mm").
#pragma once

#include "report/run_history.h"

#include <string>
#include <vector>

namespace runner {

// One section per run that recorded a table; "" when none did.
std::string class_tables_html(const std::vector<RunHistory>& runs, const std::vector<std::string>& labels);

}  // namespace runner
