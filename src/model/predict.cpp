#include "model/predict.h"

#include "model/host_read.h"
#include "model/predict_model.h"

#include "data/file_dataset.h"
#include "model/model_factory.h"
#include "model/task_head.h"
#include "tokenizer/encoding.h"
#include "util/diagnostic.h"
#include "util/input_file.h"
#include "util/output_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <istream>
#include <ostream>

namespace runner {
namespace {

struct PendingExample {
  nlohmann::json line;  // the input object, echoed with the prediction
  Encoding encoding;
};

ModelBatch pad_batch(const std::vector<PendingExample>& examples, int64_t pad_id) {
  std::vector<const Encoding*> rows;
  for (const auto& e : examples) rows.push_back(&e.encoding);
  return pad_encodings(rows, pad_id);
}

std::vector<float> row_values(const torch::Tensor& matrix, size_t i) {
  auto row = matrix[static_cast<int64_t>(i)].contiguous();
  return std::vector<float>(row.data_ptr<float>(), row.data_ptr<float>() + row.numel());
}

// A regression's score, or the labels whose sigmoid is above the threshold.
void describe_prediction(const TaskModel& model, const std::string& problem_type,
                         const std::vector<float>& logits, const PredictCommandOptions& o, nlohmann::json& line) {
  if (problem_type == "regression" || (problem_type.empty() && model.num_labels() == 1)) {
    line["score"] = logits.front();
    return;
  }
  if (problem_type == "multi_label_classification") {
    std::vector<float> sigmoids;
    nlohmann::json ids = nlohmann::json::array(), names = nlohmann::json::array();
    for (size_t k = 0; k < logits.size(); ++k) {
      sigmoids.push_back(1.0f / (1.0f + std::exp(-logits[k])));
      if (sigmoids.back() > o.threshold) {
        ids.push_back(k);
        names.push_back(model.label_name(static_cast<long long>(k)));
      }
    }
    if (o.probabilities) line["probabilities"] = sigmoids;
    line["labels"] = ids;
    line["label_names"] = names;
  }
}

void predict_batch(TaskModel& model, std::vector<PendingExample>& batch, int64_t pad_id,
                   const PredictCommandOptions& o, std::ostream& out) {
  if (batch.empty()) return;
  auto logits = read_to_host(model.forward(pad_batch(batch, pad_id)).logits.to(torch::kFloat32));
  auto best = logits.argmax(1).contiguous();  // on the host
  auto probs = logits.softmax(1);
  const std::string problem_type = model.hf_config().value("problem_type", std::string());
  for (size_t i = 0; i < batch.size(); ++i) {
    nlohmann::json line = batch[i].line;
    line["logits"] = row_values(logits, i);
    if (problem_type == "multi_label_classification" || model.num_labels() == 1) {
      describe_prediction(model, problem_type, row_values(logits, i), o, line);
    } else {
      if (o.probabilities) line["probabilities"] = row_values(probs, i);
      long long label = best.data_ptr<int64_t>()[i];
      line["label"] = label;
      line["label_name"] = model.label_name(label);
    }
    out << line.dump() << "\n";
  }
  batch.clear();
  // Each batch goes out at once: a reader that went away (`| head`) stops the work here.
  require_written(out, "standard output");
}

// The text fields of one input line; throws InputError naming the file and line.
PendingExample parse_line(const std::string& text, const std::string& input, long long line_no,
                          const Tokenizer& tokenizer, const EncodeOptions& encode_options) {
  const std::string format =
      "each line must be a JSON object {\"text_a\": \"...\", \"text_b\": \"...\"} (text_b optional)";
  PendingExample e;
  e.line = input_object(text, input, line_no,
                        format + "; a line of plain text or TSV becomes {\"text_a\": \"first sentence\", "
                                 "\"text_b\": \"second sentence\"}");
  auto fail_format = [&](const std::string& msg) { refuse_input_line(input, line_no, msg, format); };
  if (!e.line.contains("text_a") || !e.line["text_a"].is_string()) fail_format("no \"text_a\" string");
  std::optional<std::string> b;
  if (e.line.contains("text_b") && !e.line["text_b"].is_null()) {
    if (!e.line["text_b"].is_string()) fail_format("\"text_b\" is not a string");
    b = e.line["text_b"].get<std::string>();
  }
  std::string a = e.line["text_a"].get<std::string>();
  e.encoding = encode(tokenizer, a, b ? std::optional<std::string_view>(*b) : std::nullopt,
                      encode_options);
  return e;
}

// The header line's names of a CSV or TSV file (unquoted names are enough to
// find a "text_b" column), or none.
std::vector<std::string> header_names(const std::string& path, const std::string& format) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> names(1);
  for (char c : line) {
    if (c == (format == "csv" ? ',' : '\t')) names.emplace_back();
    else if (c != '"' && c != '\r') names.back() += c;
  }
  return names;
}

// The examples of a CSV, TSV or mapped JSONL file, read by the file datasets'
// reader with o's column mapping; a bad row is an error naming its line.
std::vector<PendingExample> table_examples(const PredictCommandOptions& o, const Tokenizer& tokenizer,
                                           const EncodeOptions& encode_options) {
  namespace fs = std::filesystem;
  if (o.input_name == "<stdin>")
    throw InputError(make_error({}, "--input", "a " + o.format + " input is read from a file, not standard input",
                                "pass --input FILE"));
  std::map<std::string, std::string> columns = o.columns;
  if (columns.empty()) {
    columns["text_a"] = "text_a";
    auto names = o.header && o.format != "jsonl" ? header_names(o.input_name, o.format) : std::vector<std::string>{};
    if (std::find(names.begin(), names.end(), "text_b") != names.end()) columns["text_b"] = "text_b";
  }
  const fs::path file = fs::absolute(o.input_name);
  nlohmann::json options = {{"dir", file.parent_path().string()},
                            {"files", {{"input", file.filename().string()}}},
                            {"columns", columns},
                            {"header", o.header}};
  std::vector<PendingExample> out;
  std::vector<Example> examples;
  try {
    examples = make_file_dataset(o.format, options)->load_split("input").examples;
  } catch (const InputError& e) {  // the dataset's fix names the recipe's key; predict's is a flag
    Diagnostic d = e.diagnostic();
    if (d.key_path.rfind("data.columns", 0) != 0) throw;
    d.key_path = "--columns";
    d.hint = "pass --columns text_a=COLUMN (and text_b=COLUMN for pairs) naming the input's own columns";
    throw InputError(d);
  }
  for (Example& ex : examples) {
    PendingExample e;
    e.line = {{"row", ex.id}, {"text_a", ex.text_a}};
    if (ex.text_b) e.line["text_b"] = *ex.text_b;
    e.encoding = encode(tokenizer, ex.text_a, ex.text_b ? std::optional<std::string_view>(*ex.text_b) : std::nullopt,
                        encode_options);
    out.push_back(std::move(e));
  }
  return out;
}

// --threshold picks a multi-label model's labels, and --probabilities asks for
// a classifier's: a flag the model cannot honour is refused, not ignored.
std::string flags_unfit(const TaskModel& model, const PredictCommandOptions& o) {
  const std::string problem = model.hf_config().value("problem_type", std::string());
  const bool regression = problem == "regression" || (problem.empty() && model.num_labels() == 1);
  const std::string kind = regression ? "a regression" : "a single-label classifier";
  if (o.threshold_given && problem != "multi_label_classification")
    return fmt::format("error: --threshold: the model in {} is {} (config.json's problem_type and num_labels); "
                       "--threshold picks the labels of a multi-label model\n  hint: leave --threshold out\n",
                       o.model, kind);
  if (o.probabilities && regression)
    return fmt::format("error: --probabilities: the model in {} is a regression: its one output is a score, not a "
                       "probability\n  hint: leave --probabilities out\n",
                       o.model);
  return {};
}

}  // namespace

int run_predict_command(const PredictCommandOptions& o, std::istream& in, std::ostream& out,
                        std::ostream& err) {
  // The CLI's flag table bounds these too; callers of this function get the same check.
  if (o.batch_size < 1 || o.max_length < 4) {
    err << (o.batch_size < 1
                ? fmt::format("error: --batch-size: expected an integer >= 1, found {}\n", o.batch_size)
                : fmt::format("error: --max-length: expected an integer >= 4, found {}\n", o.max_length));
    return 2;
  }
  try {
    Predictor predictor = load_predictor(o, err);
    LoadedModel& loaded = predictor.loaded;
    if (task_head_of(loaded.model->hf_config()) == TaskHead::TokenClassification)
      throw InputError(make_error(SourceLocation{o.model + "/config.json", 0, 0, {}}, "--model",
                                  "this is a token classification model: run_predict_command prints one label "
                                  "per text",
                                  "call run_entity_predict (train/predict_entities.h), as `runner predict` does"));
    if (task_head_of(loaded.model->hf_config()) == TaskHead::QuestionAnswering)
      throw InputError(make_error(SourceLocation{o.model + "/config.json", 0, 0, {}}, "--model",
                                  "this is a question answering model: run_predict_command prints one label "
                                  "per text",
                                  "call run_answer_predict (train/predict_answers.h), as `runner predict` does"));
    if (std::string refused = flags_unfit(*loaded.model, o); !refused.empty()) {
      err << refused;
      return 2;
    }
    auto& model = *loaded.model;
    torch::NoGradGuard no_grad;
    const Tokenizer& tokenizer = *predictor.tokenizer;
    EncodeOptions encode_options{o.max_length, truncation_from_name(o.truncation)};
    const int64_t pad_id = predictor.pad_id;
    std::vector<PendingExample> batch;
    if (o.format != "jsonl" || !o.columns.empty()) {
      for (PendingExample& e : table_examples(o, tokenizer, encode_options)) {
        batch.push_back(std::move(e));
        if (static_cast<int>(batch.size()) >= o.batch_size) predict_batch(model, batch, pad_id, o, out);
      }
      predict_batch(model, batch, pad_id, o, out);
      return 0;
    }
    for_each_input_batch(
        in, o.batch_size,
        [&](const std::string& text, long long line_no) {
          batch.push_back(parse_line(text, o.input_name, line_no, tokenizer, encode_options));
        },
        [&] { predict_batch(model, batch, pad_id, o, out); });
    return 0;
  } catch (const InputError& e) {
    err << e.diagnostic().format() << "\n";
    return 2;
  } catch (const std::invalid_argument& e) {
    err << "error: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace runner
