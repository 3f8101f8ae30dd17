#include "train/predict_answers.h"

#include "data/qa_dataset.h"
#include "model/host_read.h"
#include "model/predict_model.h"
#include "train/qa_evaluation.h"
#include "train/qa_postprocess.h"
#include "util/diagnostic.h"
#include "util/output_check.h"

#include <fmt/format.h>

#include <istream>
#include <ostream>

namespace runner {
namespace {

const char* const kQuestionLineFormat = "each line must be a JSON object {\"question\": \"...\", \"context\": \"...\"}";

// The question and context of one line; its id is its place in the batch.
QaExample parse_question(const nlohmann::json& line, const std::string& input, long long line_no, size_t index) {
  for (const char* key : {"question", "context"})
    if (!line.contains(key) || !line[key].is_string())
      refuse_input_line(input, line_no, fmt::format("no \"{}\" string", key), kQuestionLineFormat);
  return QaExample{std::to_string(index), line["question"].get<std::string>(), line["context"].get<std::string>(), {},
                   "line " + std::to_string(line_no)};
}

// Windows as run_qa.py pads them: to max_length, the mask on their own tokens.
ModelBatch window_batch(const std::vector<QaFeature>& features, size_t first, size_t count) {
  const auto rows = static_cast<int64_t>(count), length = static_cast<int64_t>(features[first].encoding.input_ids.size());
  std::vector<int64_t> ids, types, mask;
  for (size_t f = first; f < first + count; ++f) {
    ids.insert(ids.end(), features[f].encoding.input_ids.begin(), features[f].encoding.input_ids.end());
    types.insert(types.end(), features[f].encoding.token_type_ids.begin(), features[f].encoding.token_type_ids.end());
    mask.insert(mask.end(), features[f].attention_mask.begin(), features[f].attention_mask.end());
  }
  ModelBatch b;
  b.input_ids = torch::tensor(ids).reshape({rows, length});
  b.token_type_ids = torch::tensor(types).reshape({rows, length});
  b.attention_mask = torch::tensor(mask).reshape({rows, length});
  return b;
}

nlohmann::json answer_fields(const QaAnswer& a, bool version_2) {
  nlohmann::json j = {{"answer", a.text}};
  for (const QaCandidate& c : a.n_best) {
    if (a.text.empty() || c.text != a.text) continue;
    j["start"] = c.span.start;
    j["end"] = c.span.end;
    j["score"] = c.probability;
    break;
  }
  if (version_2 && a.null_score_diff) j["null_score_diff"] = *a.null_score_diff;
  return j;
}

// The questions of `lines`, windowed, run through the model and answered.
void answer_questions(TaskModel& model, const Predictor& p, const PredictCommandOptions& o,
                      std::vector<std::pair<nlohmann::json, QaExample>>& lines, std::ostream& out) {
  if (lines.empty()) return;
  std::vector<QaExample> examples;
  for (const auto& l : lines) examples.push_back(l.second);
  const std::vector<QaFeature> features =
      qa_features(*p.tokenizer, examples, qa_feature_options(o.qa, o.max_length), o.input_name);
  const std::shared_ptr<const QaEvalData> data = qa_eval_data(examples, features, features.size(), o.qa);
  std::vector<QaWindow> windows;
  for (size_t first = 0; first < features.size(); first += static_cast<size_t>(o.batch_size)) {
    const size_t count = std::min(features.size() - first, static_cast<size_t>(o.batch_size));
    const torch::Tensor logits =
        read_to_host(model.forward(window_batch(features, first, count)).logits.to(torch::kFloat32)).contiguous();
    for (size_t r = 0; r < count; ++r)
      windows.push_back(qa_window_with_logits(*data, first + r, logits[static_cast<int64_t>(r)].data_ptr<float>(),
                                              logits.size(1)));
  }
  const std::vector<QaAnswer> answers = postprocess_qa_predictions(data->contexts, windows, data->options);
  for (size_t i = 0; i < lines.size(); ++i) {
    nlohmann::json line = lines[i].first;
    line.update(answer_fields(answers[i], data->options.version_2_with_negative));
    out << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  }
  lines.clear();
  require_written(out, "standard output");
}

}  // namespace

int run_answer_predict(const PredictCommandOptions& o, std::istream& in, std::ostream& out, std::ostream& err) {
  try {
    Predictor predictor = load_predictor(o, err);
    TaskModel& model = *predictor.loaded.model;
    torch::NoGradGuard no_grad;
    std::vector<std::pair<nlohmann::json, QaExample>> lines;
    for_each_input_batch(
        in, o.batch_size,
        [&](const std::string& text, long long line_no) {
          nlohmann::json line = input_object(text, o.input_name, line_no, kQuestionLineFormat);
          QaExample question = parse_question(line, o.input_name, line_no, lines.size());
          lines.emplace_back(std::move(line), std::move(question));
        },
        [&] { answer_questions(model, predictor, o, lines, out); });
    return 0;
  } catch (const InputError& e) {
    err << e.diagnostic().format() << "\n";
    return 2;
  }
}

}  // namespace runner
