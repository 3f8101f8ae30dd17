#include "model/predict_model.h"

#include "model/base_weights.h"
#include "model/checkpoint.h"
#include "model/embedding_tables.h"
#include "model/lora.h"
#include "model/lora_options.h"
#include "model/peft_adapter.h"
#include "model/task_head.h"
#include "model/tokenizer_files.h"
#include "tokenizer/tokenizer_loader.h"
#include "util/diagnostic.h"
#include "util/json_input.h"
#include "util/utf8.h"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>

namespace runner {
namespace {

// A folder whose weights carry adapter tensors (".lora_A.") the model has no place for.
bool holds_adapters(const LoadReport& report) {
  for (const auto& key : report.unexpected)
    if (key.find(".lora_A.") != std::string::npos) return true;
  return false;
}

// A LoRA run's weights as training built the model (its [model] and [lora]
// over the folder's labels and head), the adapters then merged into the
// weights as `export --merge` merges them.
LoadedModel merged_run_model(const PredictCommandOptions& o, const TaskModel& folder_model) {
  const nlohmann::json config = folder_model.hf_config();
  std::vector<std::string> names;
  for (long long i = 0; i < folder_model.num_labels(); ++i) names.push_back(folder_model.label_name(i));
  const ModelContext context{folder_model.num_labels(), names, config.value("problem_type", std::string()),
                             task_head_of(config)};
  LoadedModel built = build_model(o.run_model, context, {}, lora_settings_from(o.run_lora));
  load_run_weights(*built.model, o.model)
      .require_complete("predict with the final/ or a checkpoint of the LoRA run whose recipe built it");
  merge_lora(*built.model);
  return built;
}

// An adapter folder on its base, the adapters merged into the weights as
// `export --merge` merges them (the same logits, one product per layer).
LoadedModel merged_adapter_model(const PredictCommandOptions& o) {
  LoadedModel loaded = load_adapter_folder(o.model, o.base);
  merge_lora(*loaded.model);
  return loaded;
}

}  // namespace

Predictor load_predictor(const PredictCommandOptions& o, std::ostream& err) {
  Predictor p;
  p.loaded = o.base.empty() ? load_model_folder(o.model) : merged_adapter_model(o);
  const SourceLocation config{(o.base.empty() ? o.model : o.base) + "/config.json", 0, 0, {}};
  if (p.loaded.max_positions > 0 && o.max_length > p.loaded.max_positions)
    throw InputError(make_error(config, "",
                                fmt::format("--max-length: expected at most {} (max_position_embeddings in {}), "
                                            "found {}",
                                            p.loaded.max_positions, config.file, o.max_length),
                                fmt::format("pass --max-length {} or less", p.loaded.max_positions)));
  if (holds_adapters(p.loaded.report) && !o.run_lora.is_object())
    throw InputError(make_error(SourceLocation{o.model, 0, 0, {}}, "",
                                "the weights hold LoRA adapters, and no run's recipe says how they were built",
                                "predict with the run (--model RUN), whose [lora] section predict reads, or with "
                                "the folder `runner export RUN --to DIR --merge` writes"));
  if (holds_adapters(p.loaded.report)) p.loaded = merged_run_model(o, *p.loaded.model);
  if (!p.loaded.report.missing.empty())
    err << "warning: " << p.loaded.report.warning() << "\n  predictions use random weights there\n";
  p.loaded.model->eval();
  // An adapter folder may carry its tokenizer (`runner export` copies it); PEFT's carry none: the base's.
  const bool own_tokenizer = o.base.empty() || !tokenizer_files(o.model).empty();
  const std::string tokenizer = !o.tokenizer.empty() ? o.tokenizer : own_tokenizer ? o.model : o.base;
  p.tokenizer = load_tokenizer(WordPieceSource{tokenizer});
  // A tokenizer that is not the model's would stop the first line with LibTorch's index error.
  const int64_t rows = embedding_rows(*p.loaded.model);
  if (rows > 0 && static_cast<int64_t>(p.tokenizer->vocab_size()) > rows)
    throw InputError(make_error(SourceLocation{tokenizer, 0, 0, {}}, "",
                                fmt::format("the tokenizer has {} tokens, but the model's embedding table has {} rows "
                                            "(its vocab_size); nothing was predicted",
                                            p.tokenizer->vocab_size(), rows),
                                "pass --tokenizer with the tokenizer the model was trained with"));
  p.pad_id = p.tokenizer->special_ids().pad >= 0 ? p.tokenizer->special_ids().pad : 0;
  return p;
}

void refuse_input_line(const std::string& input, long long line_no, const std::string& message,
                       const std::string& fix) {
  throw InputError(make_error(SourceLocation{input, static_cast<int>(line_no), 0, {}}, "", message, fix));
}

nlohmann::json input_object(const std::string& text, const std::string& input, long long line_no,
                            const std::string& format) {
  std::string why;
  std::optional<nlohmann::json> parsed = try_parse_json(text, why);
  // nlohmann's reason ("syntax error while parsing value") says nothing a user can act on.
  if (!parsed && why.rfind("not valid JSON", 0) == 0)
    why = "expected a JSON object, found a line that is not JSON: \"" + terminal_safe(text.substr(0, 40)) +
          (text.size() > 40 ? "...\"" : "\"");
  if (!parsed) refuse_input_line(input, line_no, why, format);
  if (!parsed->is_object())
    refuse_input_line(input, line_no, "expected a JSON object, found " + std::string(parsed->type_name()), format);
  return std::move(*parsed);
}

ModelBatch pad_encodings(const std::vector<const Encoding*>& rows, int64_t pad_id) {
  int64_t count = static_cast<int64_t>(rows.size()), longest = 0;
  for (const Encoding* e : rows) longest = std::max<int64_t>(longest, static_cast<int64_t>(e->input_ids.size()));
  ModelBatch b;
  b.input_ids = torch::full({count, longest}, pad_id, torch::kInt64);
  b.token_type_ids = torch::zeros({count, longest}, torch::kInt64);
  b.attention_mask = torch::zeros({count, longest}, torch::kInt64);
  auto ids = b.input_ids.accessor<int64_t, 2>(), types = b.token_type_ids.accessor<int64_t, 2>(),
       mask = b.attention_mask.accessor<int64_t, 2>();
  for (int64_t r = 0; r < count; ++r)
    for (size_t c = 0; c < rows[r]->input_ids.size(); ++c) {
      ids[r][c] = rows[r]->input_ids[c];
      types[r][c] = rows[r]->token_type_ids[c];
      mask[r][c] = 1;
    }
  return b;
}

}  // namespace runner
