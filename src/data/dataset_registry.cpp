// Registration of the built-in datasets and their options.
#include "data/data_checks.h"
#include "data/file_dataset.h"
#include "data/glue_tasks.h"
#include "data/qa_dataset.h"
#include "data/token_dataset.h"
#include "hub/glue_tasks.h"
#include "registry/builtins.h"
#include "registry/registry.h"
#include "util/json_input.h"

#include <algorithm>

namespace runner {

std::shared_ptr<const Dataset> make_glue_dataset(const std::string& task, const nlohmann::json& options);

namespace {

// Each built-in dataset's validate check: its split files and labels, and its metrics.
std::function<Diagnostics(const nlohmann::json&)> dataset_check(const std::string& format, bool glue) {
  return [format, glue](const nlohmann::json& recipe) {
    Diagnostics out = check_split_files(format, glue, recipe);
    if (!glue) {
      Diagnostics labels = check_split_labels(format, recipe);
      out.insert(out.end(), labels.begin(), labels.end());
    }
    Diagnostics metrics = check_dataset_metrics(recipe);
    out.insert(out.end(), metrics.begin(), metrics.end());
    return out;
  };
}

// num_labels left out: one for a regression, the classes the labels map
// names, else a binary task.
nlohmann::json classes_of_labels_map(const nlohmann::json& data) {
  if (data.value("problem_type", std::string()) == "regression") return 1;
  long long top = 1;
  nlohmann::json labels = record_object(data, "labels");
  for (const auto& [name, id] : labels.items())
    if (id.is_number_integer()) top = std::max(top, id.get<long long>());
  return std::min(top + 1, 100000LL);
}

// metrics left out: what is reported for the problem type (GLUE's STS-B
// metrics for a regression).
nlohmann::json metrics_of_problem_type(const nlohmann::json& data) {
  std::string type = data.value("problem_type", std::string("auto"));
  if (type == "auto") {
    nlohmann::json n = data.contains("num_labels") ? data["num_labels"] : classes_of_labels_map(data);
    if (n.is_number_integer() && n.get<long long>() == 1) type = "regression";
  }
  if (type == "regression") return {"pearson", "spearman", "mse"};
  if (type == "multi_label_classification") return {"micro_f1", "macro_f1", "subset_accuracy"};
  return {"accuracy"};
}

nlohmann::json first_metric(const nlohmann::json& data) {
  auto metrics = data.find("metrics");
  nlohmann::json list = metrics == data.end() ? metrics_of_problem_type(data) : *metrics;
  if (list == nlohmann::json{"accuracy"}) list = metrics_of_problem_type(data);  // the declared default
  if (!list.is_array() || list.empty() || !list.front().is_string()) return "accuracy";
  return list.front();
}

ComponentSpec glue_spec(const std::string& name, const std::string& dir, const std::string& doc) {
  ComponentSpec spec{Kind::Dataset, name, doc,
                     {opt::data_path("dir", dir, "Folder with the task's split files as GLUE ships them (train.tsv, dev.tsv, ...)")}};
  spec.recipe_check = dataset_check("tsv", true);
  return spec;
}

ComponentSpec file_spec(const std::string& format) {
  ComponentSpec spec{Kind::Dataset,
          format,
          "Labelled text from ." + format + " files, one per split, with a column mapping",
          {
              opt::required(opt::data_path("dir", "", "Folder holding the split files")),
              opt::string_map("files", "Split name -> file name; default <split>." + format),
              opt::string_map("columns",
                              "Role (text_a, text_b, label) -> column name, JSON key or 0-based "
                              "index; default text_a and label"),
              opt::flag("header", true, "The first line names the columns (tsv, csv)"),
              opt::int_map("labels", "Label text -> id; empty means labels are integers"),
              opt::choice("problem_type",
                          {"auto", "single_label_classification", "multi_label_classification", "regression"},
                          "auto",
                          "The task, named as Transformers' problem_type; auto: regression when num_labels = 1, "
                          "else one class per example"),
              opt::text("label_delimiter", "|",
                        "Multi-label, tsv and csv: the text between one row's labels (JSONL takes a list)"),
              opt::number("threshold", 0.5,
                          "Multi-label: a label is predicted when its sigmoid is above this")
                  .above(0)
                  .below(1),
              opt::integer("num_labels", 2,
                           "Number of classes (at most 100000: one classifier row each); unset: one more "
                           "than the labels map's largest id, else 2")
                  .at_least(1)
                  .at_most(100000)
                  .default_from(classes_of_labels_map),
              opt::strings("metrics", {"accuracy"},
                           "Metric components to evaluate; unset: accuracy, or pearson, spearman, mse for a "
                           "regression, or micro_f1, macro_f1, subset_accuracy for multi-label")
                  .default_from(metrics_of_problem_type),
              opt::text("main_metric", "accuracy",
                        "The metric that picks the best checkpoint; unset: the first of metrics")
                  .default_from(first_metric),
          }};
  spec.recipe_check = dataset_check(format, false);
  return spec;
}

// What validate refuses of a token classification dataset: its split files,
// then their sentences (read as a run reads them), then its metrics.
std::function<Diagnostics(const nlohmann::json&)> token_dataset_check(const std::string& format) {
  return [format](const nlohmann::json& recipe) {
    Diagnostics out = check_split_files(token_file_extension(format), false, recipe);
    if (has_errors(out)) return out;
    out = check_tagged_splits(format, recipe);
    if (has_errors(out)) return out;
    return check_dataset_metrics(recipe);
  };
}

ComponentSpec token_spec(const std::string& format) {
  const bool conll = format == "conll";
  const std::string ext = token_file_extension(format);
  std::vector<OptionSpec> options = {
      opt::required(opt::data_path("dir", "", "Folder holding the split files")),
      opt::string_map("files", "Split name -> file name; default <split>." + ext),
  };
  if (conll) {
    options.push_back(opt::integer("word_column", 0, "0-based column of the word").at_least(0).at_most(1000));
    options.push_back(
        opt::integer("tag_column", -1, "0-based column of the tag; -1: the last (CoNLL-2003's NER tag)")
            .at_least(-1)
            .at_most(1000));
  } else {
    options.push_back(opt::text("tokens_key", "tokens", "The JSON key of each line's list of words"));
    options.push_back(opt::text("tags_key", "tags", "The JSON key of each line's list of tags (names, or ids into labels)"));
  }
  options.push_back(opt::strings("labels", {},
                                 "The tags, a tag's id its place; empty: every tag of the train split, in byte "
                                 "order (as run_ner.py sorts them)"));
  options.push_back(opt::flag("label_all_tokens", false,
                              "Label every sub-token of a word (a B- word's later pieces get I-), not only the "
                              "first (run_ner.py's label_all_tokens)"));
  options.push_back(opt::flag("add_prefix_space", false,
                              "A space before each word, as byte-level BPE tokenizers (RoBERTa) need for words "
                              "given one by one"));
  options.push_back(opt::choice("long_sentences", {"truncate", "refuse"}, "truncate",
                                "A sentence longer than max_length: cut (its last words unlabelled, counted in the "
                                "log) or refused with its file and line"));
  options.push_back(opt::strings("metrics", {"entity_f1", "entity_precision", "entity_recall", "token_accuracy"},
                                 "Metric components to evaluate (seqeval's entity scores and token accuracy)"));
  options.push_back(opt::text("main_metric", "entity_f1", "The metric that picks the best checkpoint"));
  ComponentSpec spec{Kind::Dataset, format,
                     conll ? "Token classification (NER) from CoNLL files: a word and its tag a line, a blank line "
                             "between sentences"
                           : "Token classification (NER) from JSONL files: {\"tokens\": [...], \"tags\": [...]} a line",
                     std::move(options)};
  spec.recipe_check = token_dataset_check(format);
  return spec;
}

// What validate refuses of a question answering dataset: its split files, then
// their questions (read as a run reads them), then its metrics.
std::function<Diagnostics(const nlohmann::json&)> qa_dataset_check(const std::string& format) {
  return [format](const nlohmann::json& recipe) {
    Diagnostics out = check_split_files(qa_file_extension(format), false, recipe);
    if (has_errors(out)) return out;
    out = check_question_splits(format, recipe);
    if (has_errors(out)) return out;
    return check_dataset_metrics(recipe);
  };
}

ComponentSpec qa_spec(const std::string& format) {
  const std::string ext = qa_file_extension(format);
  ComponentSpec spec{
      Kind::Dataset, format,
      format == "squad_json"
          ? "Extractive question answering from SQuAD v1.1 / v2.0 JSON files ({\"data\": [{\"paragraphs\": ...}]})"
          : "Extractive question answering from JSONL files: {\"id\", \"question\", \"context\", \"answers\": "
            "{\"text\": [...], \"answer_start\": [...]}} a line",
      {
          opt::required(opt::data_path("dir", "", "Folder holding the split files")),
          opt::string_map("files", "Split name -> file name; default <split>." + ext),
          opt::choice("version", {"1.1", "2.0"}, "1.1",
                      "SQuAD version: 2.0 has unanswerable questions (no answers) and scores HasAns/NoAns"),
          opt::integer("doc_stride", 128,
                       "Tokens a context window shares with the one before (run_qa.py's doc_stride); below "
                       "the room max_length leaves for the context")
              .at_least(1)
              .at_most(100000),
          opt::integer("n_best_size", 20, "Start and end candidates kept per window, answers per question")
              .at_least(1)
              .at_most(10000),
          opt::integer("max_answer_length", 30, "The longest answer, in tokens").at_least(1).at_most(100000),
          opt::number("null_score_diff_threshold", 0.0,
                      "Version 2.0: the null answer wins when its score beats the best span's by more than this"),
          opt::strings("metrics", {"exact_match", "f1"},
                       "Metric components to evaluate (the official SQuAD exact match and F1, in percent)"),
          opt::text("main_metric", "f1", "The metric that picks the best checkpoint"),
      }};
  spec.recipe_check = qa_dataset_check(format);
  return spec;
}

}  // namespace

void register_datasets(Registry& r) {
  for (const auto& t : hub::glue_tasks())
    add_builtin(r, glue_spec("glue/" + t.task, "glue/" + t.folder, glue_task_doc(t.task)),
                DatasetFactory([task = t.task](const nlohmann::json& o) { return make_glue_dataset(task, o); }));
  for (const char* format : {"tsv", "csv", "jsonl"})
    add_builtin(r, file_spec(format), DatasetFactory([format](const nlohmann::json& o) {
                  return make_file_dataset(format, o);
                }));
  for (const char* format : {"conll", "token_jsonl"})
    add_builtin(r, token_spec(format), DatasetFactory([format](const nlohmann::json& o) {
                  return make_token_dataset(format, o);
                }));
  for (const char* format : {"squad_json", "squad_jsonl"})
    add_builtin(r, qa_spec(format), DatasetFactory([format](const nlohmann::json& o) {
                  return make_qa_dataset(format, o);
                }));
}

}  // namespace runner
