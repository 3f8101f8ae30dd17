// The generic TSV, CSV and JSONL datasets (data/file_datasets.cpp).
#pragma once

#include "data/dataset.h"

#include <set>
#include <string>

namespace runner {

// options: the resolved [data] section; throws InputError for settings that
// disagree (a labels map id past num_labels).
std::shared_ptr<const Dataset> make_file_dataset(const std::string& format, const nlohmann::json& options);

// The distinct texts of a split's label column, read as a run reads the split
// but before any is turned into an id; rows that are malformed for other
// reasons are left out (the run reports them). Only the lines within the
// file's first kLabelScanBytes are read: validate stays quick on a split of
// gigabytes, and a label past them is still refused by the run with its line.
constexpr size_t kLabelScanBytes = size_t{64} << 20;
std::set<std::string> split_label_texts(const std::string& format, const nlohmann::json& options,
                                        const std::string& split);

}  // namespace runner
