#include "data/token_dataset.h"

#include "data/split_files.h"
#include "data/token_label_alignment.h"
#include "data/token_tag_rows.h"
#include "util/diagnostic.h"
#include "util/json_input.h"

#include <algorithm>
#include <map>
#include <set>

namespace runner {
namespace {

struct TokenDatasetConfig {
  std::string format;  // "conll", "token_jsonl"
  std::string dir;
  std::map<std::string, std::string> files;  // split -> file name
  ConllColumns columns;
  JsonlTagKeys keys;
  SentenceLabelling labelling;
  DatasetInfo info;
};

class TokenDataset : public Dataset {
 public:
  explicit TokenDataset(TokenDatasetConfig c) : c_(std::move(c)) {}
  const DatasetInfo& info() const override { return c_.info; }

  std::string split_file(const std::string& split) const override {
    return split_file_path(c_.dir, c_.files, split, token_file_extension(c_.format));
  }

  SplitData load_split(const std::string& split) const override {
    SplitData out;
    out.split = split;
    out.file = split_file(split);
    out.sentences = read_sentences(out.file, c_.labelling.labels);
    out.labelling = c_.labelling;
    return out;
  }

  // Every sentence of `file`, its tags checked against `labels` (none: any tag).
  std::vector<TaggedSentence> read_sentences(const std::string& file, const std::vector<std::string>& labels) const {
    TagRules rules{labels};
    return c_.format == "conll" ? read_conll(file, c_.columns, rules) : read_tag_jsonl(file, c_.keys, rules);
  }

 private:
  TokenDatasetConfig c_;
};

InputError config_error(const std::string& key, std::string what, std::string hint) {
  return InputError(make_error({}, "data." + key, std::move(what), std::move(hint)));
}

// The train split's tags in byte order: run_ner.py's get_label_list sorts them so.
std::vector<std::string> train_tags(const TokenDataset& dataset, const std::string& train_split) {
  std::set<std::string> tags;
  for (const TaggedSentence& s : dataset.read_sentences(dataset.split_file(train_split), {}))
    tags.insert(s.tags.begin(), s.tags.end());
  return {tags.begin(), tags.end()};
}

void check_label_list(const std::vector<std::string>& labels) {
  std::set<std::string> seen;
  for (const std::string& l : labels) {
    if (l.empty()) throw config_error("labels", "a label is empty", "remove it, or write the tag it stands for");
    if (!seen.insert(l).second)
      throw config_error("labels", "label \"" + l + "\" is listed twice", "list every tag once: its place is its id");
  }
}

TokenDatasetConfig token_config(const std::string& format, const nlohmann::json& o) {
  TokenDatasetConfig c;
  c.format = format;
  c.dir = o.at("dir").get<std::string>();
  c.files = o.value("files", std::map<std::string, std::string>{});
  c.columns.word = static_cast<size_t>(o.value("word_column", 0LL));
  const long long tag = o.value("tag_column", -1LL);
  if (tag >= 0) c.columns.tag = static_cast<size_t>(tag);
  c.keys.words = o.value("tokens_key", std::string("tokens"));
  c.keys.tags = o.value("tags_key", std::string("tags"));
  c.labelling.labels = o.value("labels", std::vector<std::string>{});
  check_label_list(c.labelling.labels);
  c.labelling.align.subwords = o.value("label_all_tokens", false) ? SubwordLabels::All : SubwordLabels::First;
  c.labelling.align.add_prefix_space = o.value("add_prefix_space", false);
  c.labelling.align.refuse_truncation = o.value("long_sentences", std::string("truncate")) == "refuse";
  c.info.problem_type = ProblemType::TokenClassification;
  c.info.metrics = o.value("metrics", std::vector<std::string>{});
  c.info.main_metric = o.value("main_metric", std::string());
  if (c.info.main_metric.empty() && !c.info.metrics.empty()) c.info.main_metric = c.info.metrics.front();
  return c;
}

}  // namespace

std::string token_file_extension(const std::string& format) { return format == "conll" ? "conll" : "jsonl"; }

std::shared_ptr<const Dataset> make_token_dataset(const std::string& format, const nlohmann::json& o) {
  TokenDatasetConfig c = token_config(format, o);
  if (c.labelling.labels.empty())
    c.labelling.labels = train_tags(TokenDataset(c), o.value("train_split", std::string("train")));
  if (c.labelling.labels.size() < 2)
    throw InputError(make_error({TokenDataset(c).split_file(o.value("train_split", std::string("train"))), 0, 0, {}},
                                "data.labels",
                                "the label list has " + std::to_string(c.labelling.labels.size()) +
                                    " tag(s); token classification tells at least two apart",
                                "tag the train split's entities (B-PER, I-PER, O ...), or list the tags in data.labels"));
  c.info.label_names = c.labelling.labels;
  c.info.num_labels = static_cast<int>(c.labelling.labels.size());
  return std::make_shared<TokenDataset>(std::move(c));
}

Diagnostics check_tagged_splits(const std::string& format, const nlohmann::json& recipe) {
  nlohmann::json data = record_object(recipe, "data");
  try {
    auto dataset = make_token_dataset(format, data);
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
