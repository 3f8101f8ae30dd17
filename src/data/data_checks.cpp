#include "data/data_checks.h"

#include "data/dataset.h"
#include "data/file_dataset.h"
#include "data/table_rows.h"
#include "registry/registry.h"
#include "util/diagnostic.h"
#include "util/input_file.h"
#include "util/json_input.h"
#include "util/suggest.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>

namespace runner {
namespace fs = std::filesystem;
namespace {

struct SplitFile {
  const char* key;    // "train_split"
  std::string split;  // "train"
  std::string name;   // its file's name in data.dir
  std::string path;
  bool mapped;        // data.files names it
};

std::vector<SplitFile> split_files(const std::string& format, const nlohmann::json& data) {
  nlohmann::json files = record_object(data, "files");
  std::string dir = record_string(data, "dir");
  std::vector<SplitFile> out;
  for (const char* key : {"train_split", "eval_split"}) {
    std::string split = record_string(data, key);
    if (split.empty() || (!out.empty() && out.front().split == split)) continue;
    std::string name = record_string(files, split.c_str(), split + "." + format);
    out.push_back({key, split, name, (fs::path(dir) / name).string(), files.contains(split)});
  }
  return out;
}

// The regular files of `dir`, to show what a data.files entry could name.
std::string folder_listing(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (names.size() == 8) {
      names.push_back("...");
      break;
    }
    if (entry.is_regular_file(ec)) names.push_back(entry.path().filename().string());
  }
  return names.empty() ? "it holds no files" : "it holds " + join(names);
}

// The files a run of the recipe's dataset reads: its train and eval splits and
// the eval split's companions (MNLI's dev_mismatched), as the dataset names them.
std::vector<std::pair<std::string, std::string>> dataset_split_files(const nlohmann::json& data) {
  std::vector<std::pair<std::string, std::string>> out;  // split, path
  const Component* kind = registry().find(Kind::Dataset, record_string(data, "dataset"));
  if (!kind) return out;
  std::shared_ptr<const Dataset> dataset = std::any_cast<DatasetFactory>(kind->factory)(data);
  const std::string eval = record_string(data, "eval_split");
  for (const std::string& split : {record_string(data, "train_split"), eval})
    if (!split.empty()) out.push_back({split, dataset->split_file(split)});
  if (!eval.empty())
    for (const CompanionSplit& c : dataset->companion_splits(eval)) out.push_back({c.split, dataset->split_file(c.split)});
  return out;
}

// A GLUE folder that exists is read as it is (a download only makes a missing
// one): each file a run reads must be in it.
void check_glue_split_files(const nlohmann::json& data, const std::string& dir, Diagnostics& out) {
  std::vector<std::pair<std::string, std::string>> files;
  try {
    files = dataset_split_files(data);
  } catch (const std::exception&) {
    return;  // an unknown split: the dataset's own error, at the run's first read
  }
  std::error_code ec;
  for (const auto& [split, path] : files)
    if (!fs::exists(fs::symlink_status(path, ec)))
      out.push_back(make_error({}, "data.dir",
                               "the " + split + " split's file " + fs::path(path).filename().string() + " is not in " +
                                   dir + " (" + folder_listing(dir) + ")",
                               "add it there as the GLUE distribution has it, or name a folder that holds the "
                               "whole task (`runner fetch " + record_string(data, "dataset") + "` downloads one)"));
}

Diagnostic missing_split(const SplitFile& f, const std::string& dir) {
  std::string key = f.mapped ? "data.files." + f.split : std::string("data.") + f.key;
  return make_error({}, key,
                    "the " + f.split + " split's file " + f.name + " is not in " + dir + " (" +
                        folder_listing(dir) + ")",
                    "add " + f.name + " there, or name the split's file in data.files: files = { " + f.split +
                        " = \"...\" }");
}

// "3.54", "-1e-3": a number that is no class id, such as a regression target
// that training can take (data/table_rows.h, kMaxRegressionTarget), read as
// the run reads it.
bool is_number(const std::string& text) {
  std::optional<double> v = regression_number(text);
  return v && std::abs(*v) <= kMaxRegressionTarget;
}

bool is_class_id(const std::string& text, long long& id) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  return ec == std::errc() && end == text.data() + text.size();
}

std::string quoted_list(const std::vector<std::string>& texts) {
  std::vector<std::string> q;
  for (const auto& t : texts) {
    if (q.size() == 6) {
      q.push_back("...");
      break;
    }
    q.push_back("\"" + t + "\"");
  }
  return join(q);
}

// `labels = { neg = 0, pos = 1 }`, the label texts in sorted order.
std::string labels_map_line(const std::set<std::string>& texts) {
  std::string line;
  int id = 0;
  for (const auto& t : texts) {
    bool bare = !t.empty() && t.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") ==
                                  std::string::npos;
    line += (line.empty() ? "" : ", ") + (bare ? t : nlohmann::json(t).dump()) + " = " + std::to_string(id++);
    if (id == 12 && texts.size() > 12) return "labels = { " + line + ", ... }";
  }
  return "labels = { " + line + " }";
}

// Label texts with no labels map: they must be class ids below num_labels.
void check_ids(const SplitFile& f, const std::set<std::string>& texts, const nlohmann::json& data,
               bool skipping, Diagnostics& out) {
  std::vector<std::string> words, outside;
  long long num_labels = record_integer(data, "num_labels", 2), top = -1;
  for (const auto& t : texts) {
    long long id = 0;
    if (!is_class_id(t, id)) {
      words.push_back(t);
    } else if (id < 0 || id >= num_labels) {
      outside.push_back(t);
      top = std::max(top, id);
    }
  }
  // Skipped bad rows only stop a run when none is left.
  if (skipping && words.size() + outside.size() < texts.size()) return;
  if (!words.empty() && std::all_of(words.begin(), words.end(), is_number))
    return out.push_back(make_error({f.path, 0, 0, {}}, "data.labels",
                                    "the " + f.split + " split's labels are numbers that are no class ids (" +
                                        quoted_list(words) +
                                        "): regression targets, which a classification does not read",
                                    "for a regression, set num_labels = 1 (or problem_type = \"regression\"); for "
                                    "classes, write each label as a class id from 0 to num_labels - 1, or map each "
                                    "label text to one in data.labels"));
  if (!words.empty())
    return out.push_back(make_error({f.path, 0, 0, {}}, "data.labels",
                                    "the " + f.split + " split's labels are text (" + quoted_list(words) +
                                        "), and data.labels maps none of them to a class id",
                                    "add `" + labels_map_line(texts) + "` to [data]"));
  if (!outside.empty())
    out.push_back(make_error({f.path, 0, 0, {}}, "data.num_labels",
                             "the " + f.split + " split has label " + quoted_list(outside) + ", but num_labels = " +
                                 std::to_string(num_labels) + " (class ids 0 to " +
                                 std::to_string(num_labels - 1) + ")",
                             top >= num_labels ? "set num_labels = " + std::to_string(top + 1)
                                               : "class ids run from 0 to num_labels - 1"));
}

// A regression's labels must all be numbers.
void check_numbers(const SplitFile& f, const std::set<std::string>& texts, bool skipping, Diagnostics& out) {
  std::vector<std::string> words;
  for (const auto& t : texts)
    if (!is_number(t)) words.push_back(t);
  if (words.empty() || (skipping && words.size() < texts.size())) return;
  out.push_back(make_error({f.path, 0, 0, {}}, "data.labels",
                           "the " + f.split + " split's labels (" + quoted_list(words) +
                               ") are not numbers a regression trains on (finite, at most 1.8e19 in size, so "
                               "that the squared error stays a float32), and this dataset is a regression "
                               "(num_labels = 1)",
                           "for classes, set data.num_labels to their count and map each label text to an id "
                           "in data.labels; for a regression, make every label a number"));
}

// A label that is a list of IOB/BILOU tags ("[\"B-PER\", \"O\"]") or one such tag: a
// row of a token-classification (NER) file, not one label of a sequence.
bool looks_like_token_tags(const std::string& label) {
  auto is_tag = [](const std::string& t) {
    return t == "O" || (t.size() > 2 && t[1] == '-' && std::string("BIESLU").find(t[0]) != std::string::npos);
  };
  if (label.empty() || label.front() != '[') return is_tag(label) && label != "O";
  const nlohmann::json list = nlohmann::json::parse(label, nullptr, false);  // discarded: no array
  if (!list.is_array() || list.empty()) return false;
  return std::all_of(list.begin(), list.end(),
                     [&](const nlohmann::json& t) { return t.is_string() && is_tag(t.get<std::string>()); });
}

// `id_limit` > 0: a class id below it counts as mapped (a multi-label list may hold ids).
void check_mapped(const SplitFile& f, const std::set<std::string>& texts, const nlohmann::json& labels,
                  bool skipping, Diagnostics& out, long long id_limit = 0) {
  std::vector<std::string> unknown;
  for (const auto& t : texts) {
    long long id = 0;
    if (!labels.contains(t) && !(is_class_id(t, id) && id >= 0 && id < id_limit)) unknown.push_back(t);
  }
  if (unknown.empty() || (skipping && unknown.size() < texts.size())) return;
  const bool tags = std::any_of(unknown.begin(), unknown.end(), looks_like_token_tags);
  out.push_back(make_error({f.path, 0, 0, {}}, "data.labels",
                           "the " + f.split + " split has labels that data.labels does not map: " +
                               quoted_list(unknown),
                           tags ? "these look like NER tags, one per word: a token classification dataset reads "
                                  "them (data.dataset = \"conll\" or \"token_jsonl\", docs/data.md)"
                                : "add them to data.labels, or set on_bad_row = \"skip\" to leave their rows out"));
}

}  // namespace

Diagnostics check_split_files(const std::string& format, bool fetched_when_missing,
                              const nlohmann::json& recipe) {
  Diagnostics out;
  nlohmann::json data = record_object(recipe, "data");
  std::string dir = record_string(data, "dir");
  std::error_code ec;
  if (dir.empty() || !fs::is_directory(dir, ec)) return out;  // the path check or a download answers
  for (const SplitFile& f : split_files(format, data)) {
    std::string kind = special_file_kind(f.path);
    if (!kind.empty())
      out.push_back(make_error({f.path, 0, 0, {}}, std::string("data.") + f.key,
                               "the " + f.split + " split's file is " + kind + ", not a regular file",
                               "put the split in a regular file: a pipe or a device would block the run's "
                               "first read"));
    else if (!fetched_when_missing && !fs::exists(fs::symlink_status(f.path, ec)))
      out.push_back(missing_split(f, dir));
  }
  if (fetched_when_missing) check_glue_split_files(data, dir, out);
  return out;
}

Diagnostics check_split_labels(const std::string& format, const nlohmann::json& recipe) {
  Diagnostics out;
  nlohmann::json data = record_object(recipe, "data");
  std::string dir = record_string(data, "dir");
  std::error_code ec;
  if (dir.empty() || !fs::is_directory(dir, ec)) return out;
  const bool skipping = record_string(data, "on_bad_row") == "skip";
  const nlohmann::json labels = record_object(data, "labels");
  const std::string type = record_string(data, "problem_type");
  const bool regression = type == "regression" || ((type.empty() || type == "auto") &&
                                                   record_integer(data, "num_labels", 2) == 1);
  for (const SplitFile& f : split_files(format, data)) {
    if (!fs::is_regular_file(f.path, ec)) continue;  // check_split_files says why
    std::set<std::string> texts;
    try {
      texts = split_label_texts(format, data, f.split);
    } catch (const InputError& e) {
      out.push_back(e.diagnostic());  // a column the header lacks, a bad row: what the run would refuse
      continue;
    } catch (const std::exception&) {
      continue;  // an unreadable file: check_split_files and the run name it with its place
    }
    if (regression) check_numbers(f, texts, skipping, out);
    else if (labels.empty()) check_ids(f, texts, data, skipping, out);
    else check_mapped(f, texts, labels, skipping, out,
                      type == "multi_label_classification" ? record_integer(data, "num_labels", 2) : 0);
  }
  return out;
}

}  // namespace runner
