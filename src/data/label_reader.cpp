// Reading one row's label text: a class id or name (single-label), a number
// (regression), or a list of labels turned into 0/1 targets (multi-label).
#include "data/table_rows.h"
#include "util/json_input.h"
#include "util/numbers.h"

#include <cctype>
#include <charconv>
#include <cmath>

namespace runner {

namespace {

std::string known_names(const std::map<std::string, int64_t>& by_name) {
  std::string known;
  for (const auto& [name, id] : by_name) known += (known.empty() ? "" : ", ") + ("\"" + name + "\"");
  return known;
}

std::string trimmed(std::string_view s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string_view::npos ? std::string() : std::string(s.substr(b, e - b + 1));
}

// An id in [0, num_labels) written as digits, or nullopt.
std::optional<int64_t> parse_id(const std::string& text, int num_labels) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 0 || v >= num_labels) return std::nullopt;
  return v;
}

// A single-label dataset given a list: the task is multi-label.
std::string list_note(const std::string& text) {
  return !text.empty() && text.front() == '['
             ? " (a list of labels is a multi-label task: set data.problem_type = \"multi_label_classification\")"
             : "";
}

}  // namespace

int64_t target_width(const DatasetInfo& info) {
  switch (info.problem_type) {
    case ProblemType::Regression: return 1;
    case ProblemType::MultiLabel: return info.num_labels;
    case ProblemType::SingleLabel: return 0;
    case ProblemType::TokenClassification: return 0;  // labels per token, not targets
    case ProblemType::QuestionAnswering: return 2;    // a window's answer start and end token
  }
  return 0;
}

std::optional<int64_t> LabelReader::read(const std::string& text, std::string& why) const {
  if (texts_seen) {
    texts_seen->insert(text);
    return 0;
  }
  if (!by_name.empty()) {
    auto it = by_name.find(text);
    if (it != by_name.end()) return it->second;
    why = "label \"" + text + "\" is not one of " + known_names(by_name) + list_note(text);
    return std::nullopt;
  }
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 0 || v >= num_labels) {
    why = "label \"" + text + "\" is not an integer in [0, " + std::to_string(num_labels - 1) + "]" + list_note(text);
    return std::nullopt;
  }
  return v;
}

std::optional<std::vector<float>> LabelReader::read_targets(const std::string& text, std::string& why,
                                                            std::string& hint) const {
  return problem == ProblemType::Regression ? read_number(text, why, hint) : read_list(text, why, hint);
}

std::optional<double> regression_number(std::string_view text) {
  std::string t = trimmed(text);
  if (t.size() > 1 && t[0] == '+' && (std::isdigit(static_cast<unsigned char>(t[1])) || t[1] == '.')) t.erase(0, 1);
  std::string why;
  return parse_number(t, why);
}

std::optional<std::vector<float>> LabelReader::read_number(const std::string& text, std::string& why,
                                                           std::string& hint) const {
  if (texts_seen) {
    texts_seen->insert(text);
    return std::vector<float>{0.0f};
  }
  std::optional<double> v = regression_number(text);
  if (v && std::abs(*v) <= kMaxRegressionTarget) return std::vector<float>{static_cast<float>(*v)};
  if (v) {
    why = "label \"" + text + "\" is too large for training: its squared error overflows float32 above 1.8e19";
    hint = "scale the targets (divide the column by a power of 10), or fix the row";
    return std::nullopt;
  }
  why = "label \"" + text + "\" is not a number, and this dataset is a regression (num_labels = 1)";
  hint = "for classes, set data.num_labels to their count and map each label text to an id in data.labels "
         "(e.g. labels = { neg = 0, pos = 1 }); for a regression, make every label a number";
  return std::nullopt;
}

// The texts of a JSON list (names or ids), or of `delimiter`-joined text; an
// empty text is an example with no label.
std::vector<std::string> LabelReader::list_items(const std::string& text, std::string& why) const {
  std::vector<std::string> items;
  std::string t = trimmed(text);
  if (!t.empty() && t.front() == '[') {
    std::optional<nlohmann::json> list = try_parse_json(t, why);
    if (!list) return items;
    if (!list->is_array()) return why = "labels \"" + text + "\" are not a JSON list", items;
    for (const auto& v : *list) {
      if (!v.is_string() && !v.is_number_integer()) {
        why = "labels " + t + " hold " + v.dump() + ", neither a label name nor an id";
        return {};
      }
      items.push_back(v.is_string() ? v.get<std::string>() : v.dump());
    }
    return items;
  }
  for (size_t at = 0; !t.empty();) {
    size_t next = t.find(delimiter, at);
    std::string item = trimmed(std::string_view(t).substr(at, next == std::string::npos ? next : next - at));
    if (!item.empty()) items.push_back(item);
    if (next == std::string::npos) break;
    at = next + delimiter.size();
  }
  return items;
}

std::optional<std::vector<float>> LabelReader::read_list(const std::string& text, std::string& why,
                                                         std::string& hint) const {
  std::vector<std::string> items = list_items(text, why);
  if (!why.empty()) {
    hint = "write a row's labels as a JSON list ([\"food\", \"price\"]) or joined by data.label_delimiter (\"" +
           delimiter + "\")";
    return std::nullopt;
  }
  std::vector<float> targets(static_cast<size_t>(num_labels), 0.0f);
  for (const std::string& item : items) {
    if (texts_seen) {
      texts_seen->insert(item);
      continue;
    }
    // A name of the map, else an id (a JSON list may hold either).
    std::optional<int64_t> id = by_name.count(item) ? by_name.at(item) : parse_id(item, num_labels);
    if (!id) id = read(item, why);
    if (!id) {
      hint = by_name.empty() ? "map each label text to an id in data.labels, or write ids from 0 to num_labels - 1"
                             : "add it to data.labels, or set data.on_bad_row = \"skip\" to leave such rows out";
      return std::nullopt;
    }
    targets[static_cast<size_t>(*id)] = 1.0f;
  }
  return targets;
}

}  // namespace runner
