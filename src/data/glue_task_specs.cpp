// The GLUE tasks' columns, labels and metrics. Header names, label classes
// (in id order) and which tasks hold label texts are those of Hugging Face
// `datasets`' glue builder (datasets/glue/glue.py); the metrics are GLUE's
// official ones as Transformers' run_glue.py reports them (CoLA: Matthews
// correlation; STS-B: Pearson and Spearman; MRPC and QQP: accuracy and F1;
// the others accuracy; MNLI on its matched and mismatched dev sets).
#include "data/glue_tasks.h"

#include "util/diagnostic.h"

namespace runner {
namespace {

DatasetInfo classes(std::vector<std::string> names, std::vector<std::string> metrics, bool pair) {
  DatasetInfo info;
  info.num_labels = static_cast<int>(names.size());
  info.label_names = std::move(names);
  // The best checkpoint follows F1 where GLUE reports it beside accuracy (MRPC, QQP).
  info.main_metric = metrics.front() == "accuracy" && metrics.size() > 1 ? metrics[1] : metrics.front();
  info.metrics = std::move(metrics);
  info.is_pair = pair;
  return info;
}

// Label texts mapped to their ids, in the order `info.label_names` gives.
std::map<std::string, int64_t> ids_of(const DatasetInfo& info) {
  std::map<std::string, int64_t> ids;
  for (size_t i = 0; i < info.label_names.size(); ++i) ids[info.label_names[i]] = static_cast<int64_t>(i);
  return ids;
}

GlueTask pair_task(std::string name, std::string a, std::string b, std::string label, DatasetInfo info) {
  GlueTask t;
  t.name = std::move(name);
  t.text_a = std::move(a);
  t.text_b = std::move(b);
  t.label = std::move(label);
  t.info = std::move(info);
  return t;
}

GlueTask cola() {
  // train/dev.tsv: source \t label \t original mark \t sentence, no header; test.tsv: index \t sentence.
  GlueTask t = pair_task("cola", "sentence", "", "label", classes({"unacceptable", "acceptable"}, {"mcc"}, false));
  t.headerless_labelled = true;
  t.headerless = {3, -1, 1, 4};
  return t;
}

GlueTask stsb() {
  // index genre filename year old_index source1 source2 sentence1 sentence2 score; test.tsv without score.
  DatasetInfo info;
  info.num_labels = 1;
  info.label_names = {"score"};
  info.metrics = {"pearson", "spearman"};
  info.main_metric = "pearson";
  info.is_pair = true;
  info.problem_type = ProblemType::Regression;
  return pair_task("stsb", "sentence1", "sentence2", "score", info);
}

GlueTask mnli() {
  // index promptID pairID genre sentence1/2_binary_parse sentence1/2_parse sentence1 sentence2 label1
  // [label2 .. label5 in the dev files] gold_label; the test files end at sentence2.
  GlueTask t = pair_task("mnli", "sentence1", "sentence2", "gold_label",
                         classes({"entailment", "neutral", "contradiction"}, {"accuracy"}, true));
  t.label_ids = ids_of(t.info);
  t.companion_of = "dev_matched";
  // "_mm", as Transformers' run_glue.py suffixes the mismatched set's metrics.
  t.companion = {"dev_mismatched", "_mm"};
  return t;
}

GlueTask with_label_texts(GlueTask t) {
  t.label_ids = ids_of(t.info);
  return t;
}

}  // namespace

GlueTask glue_task(const std::string& name) {
  if (name == "cola") return cola();
  // sentence \t label; test.tsv: index \t sentence.
  if (name == "sst2") return pair_task("sst2", "sentence", "", "label", classes({"negative", "positive"}, {"accuracy"}, false));
  // Quality \t #1 ID \t #2 ID \t #1 String \t #2 String; test.tsv: index in Quality's place.
  if (name == "mrpc")
    return pair_task("mrpc", "#1 String", "#2 String", "Quality",
                     classes({"not_equivalent", "equivalent"}, {"accuracy", "f1"}, true));
  // id qid1 qid2 question1 question2 is_duplicate; test.tsv: id question1 question2.
  if (name == "qqp")
    return pair_task("qqp", "question1", "question2", "is_duplicate",
                     classes({"not_duplicate", "duplicate"}, {"accuracy", "f1"}, true));
  if (name == "stsb") return stsb();
  if (name == "mnli") return mnli();
  // index question sentence label, the label a text; test.tsv without label.
  if (name == "qnli")
    return with_label_texts(pair_task("qnli", "question", "sentence", "label",
                                      classes({"entailment", "not_entailment"}, {"accuracy"}, true)));
  // index sentence1 sentence2 label, the label a text.
  if (name == "rte")
    return with_label_texts(pair_task("rte", "sentence1", "sentence2", "label",
                                      classes({"entailment", "not_entailment"}, {"accuracy"}, true)));
  // index sentence1 sentence2 label, the label 0 or 1.
  if (name == "wnli")
    return pair_task("wnli", "sentence1", "sentence2", "label",
                     classes({"not_entailment", "entailment"}, {"accuracy"}, true));
  throw std::logic_error("no GLUE task " + name);
}

std::string glue_task_doc(const std::string& name) {
  static const std::map<std::string, std::string> docs = {
      {"cola", "GLUE CoLA acceptability of single sentences (Matthews correlation)"},
      {"sst2", "GLUE SST-2 sentence sentiment (accuracy)"},
      {"mrpc", "GLUE MRPC paraphrase pairs (accuracy, F1)"},
      {"qqp", "GLUE QQP duplicate question pairs (accuracy, F1)"},
      {"stsb", "GLUE STS-B sentence similarity, a regression (Pearson, Spearman)"},
      {"mnli", "GLUE MNLI entailment, 3 classes (accuracy on the matched and mismatched dev sets)"},
      {"qnli", "GLUE QNLI question answering as entailment (accuracy)"},
      {"rte", "GLUE RTE textual entailment (accuracy)"},
      {"wnli", "GLUE WNLI Winograd entailment (accuracy)"},
  };
  return docs.at(name);
}

}  // namespace runner
