// The [data] section's own options (the dataset component adds its own), each
// declared once together with the DataSettings field it writes. Torch-free.
#pragma once

#include "data/sampler.h"
#include "registry/option_binding.h"
#include "tokenizer/encoding.h"

#include <string>

namespace runner {

enum class PaddingMode { Dynamic, MaxLength };
enum class BadRowPolicy { Error, Skip };

struct DataSettings {
  std::string train_split, eval_split;
  long long max_length{};
  Truncation truncation{};
  PaddingMode padding{};
  long long pad_to_multiple_of{};
  long long train_batch_size{}, eval_batch_size{};
  SamplerKind sampler{};
  long long max_train_examples{}, max_eval_examples{};
  BadRowPolicy on_bad_row{};
  std::string cache_dir;
};

const OptionBinding<DataSettings>& data_options();

// The settings of a resolved [data] section.
DataSettings data_settings_from(const nlohmann::json& data_section);

}  // namespace runner
