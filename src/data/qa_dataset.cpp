#include "data/qa_dataset.h"

#include "data/split_files.h"
#include "util/json_input.h"

#include <map>

namespace runner {
namespace {

struct QaDatasetConfig {
  std::string format;  // "squad_json", "squad_jsonl"
  std::string dir;
  std::map<std::string, std::string> files;  // split -> file name
  DatasetInfo info;
};

class QaDataset : public Dataset {
 public:
  explicit QaDataset(QaDatasetConfig c) : c_(std::move(c)) {}
  const DatasetInfo& info() const override { return c_.info; }

  std::string split_file(const std::string& split) const override {
    return split_file_path(c_.dir, c_.files, split, qa_file_extension(c_.format));
  }

  SplitData load_split(const std::string& split) const override {
    SplitData out;
    out.split = split;
    out.file = split_file(split);
    const SquadVersion version = c_.info.qa->version;
    out.questions = c_.format == "squad_json" ? read_squad_json(out.file, version) : read_qa_jsonl(out.file, version);
    out.qa = c_.info.qa;
    return out;
  }

 private:
  QaDatasetConfig c_;
};

}  // namespace

std::string qa_file_extension(const std::string& format) { return format == "squad_json" ? "json" : "jsonl"; }

QaFeatureOptions qa_feature_options(const QaSettings& settings, int max_length) {
  QaFeatureOptions o;
  o.max_length = max_length;
  o.doc_stride = settings.doc_stride;
  return o;
}

QaSettings qa_settings_from(const nlohmann::json& data) {
  QaSettings qa;
  qa.version = record_string(data, "version", "1.1") == "2.0" ? SquadVersion::V2_0 : SquadVersion::V1_1;
  qa.doc_stride = static_cast<int>(record_integer(data, "doc_stride", qa.doc_stride));
  qa.n_best_size = static_cast<int>(record_integer(data, "n_best_size", qa.n_best_size));
  qa.max_answer_length = static_cast<int>(record_integer(data, "max_answer_length", qa.max_answer_length));
  qa.null_score_diff_threshold = record_number(data, "null_score_diff_threshold", qa.null_score_diff_threshold);
  return qa;
}

std::shared_ptr<const Dataset> make_qa_dataset(const std::string& format, const nlohmann::json& o) {
  QaDatasetConfig c;
  c.format = format;
  c.dir = o.at("dir").get<std::string>();
  c.files = o.value("files", std::map<std::string, std::string>{});
  c.info.qa = qa_settings_from(o);
  c.info.problem_type = ProblemType::QuestionAnswering;
  c.info.num_labels = 2;  // start and end
  c.info.metrics = o.value("metrics", std::vector<std::string>{"exact_match", "f1"});
  c.info.main_metric = o.value("main_metric", std::string("f1"));
  return std::make_shared<QaDataset>(std::move(c));
}

Diagnostics check_question_splits(const std::string& format, const nlohmann::json& recipe) {
  nlohmann::json data = record_object(recipe, "data");
  // A window holds 3 special tokens and at least one question token; the
  // context's share must exceed the stride. Longer questions are checked when
  // the split is windowed.
  const long long max_length = record_integer(data, "max_length", 128), stride = record_integer(data, "doc_stride", 128);
  if (stride >= max_length - 4)
    return {make_error({}, "data.doc_stride",
                       "doc_stride = " + std::to_string(stride) + " is not below the " +
                           std::to_string(max_length - 4) + " context tokens a window of max_length = " +
                           std::to_string(max_length) + " holds at most",
                       "lower data.doc_stride (run_qa.py: 128 for max_length 384), or raise data.max_length")};
  try {
    auto dataset = make_qa_dataset(format, data);
    for (const char* key : {"train_split", "eval_split"}) {
      const std::string split = record_string(data, key);
      if (!split.empty()) dataset->load_split(split);
    }
  } catch (const InputError& e) {
    return {e.diagnostic()};
  }
  return {};
}

}  // namespace runner
