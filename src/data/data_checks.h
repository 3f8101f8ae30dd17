// Validate-time checks of the built-in datasets' files: what a run would
// refuse when it reads them, refused before any run directory exists.
#pragma once

#include "util/diagnostic.h"

#include <nlohmann/json.hpp>

#include <string>

namespace runner {

// The train and eval splits' files: a FIFO or a device is refused (it would
// block the first read), and so is a missing file. With `fetched_when_missing`
// (GLUE: a missing folder is downloaded) a folder that exists must hold every
// file a run reads, companions such as MNLI's dev_mismatched included.
Diagnostics check_split_files(const std::string& format, bool fetched_when_missing,
                              const nlohmann::json& resolved_recipe);

// The train and eval splits' label texts against data.labels and num_labels.
Diagnostics check_split_labels(const std::string& format, const nlohmann::json& resolved_recipe);

}  // namespace runner
