#include "data/token_tag_rows.h"

#include "data/text_rows.h"
#include "util/diagnostic.h"
#include "util/json_input.h"

#include <algorithm>

namespace runner {

namespace {

[[noreturn]] void refuse(const std::string& file, int line, const std::string& what, const std::string& fix) {
  throw InputError(make_error({file, line, 0, {}}, {}, what, fix));
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// The tag's scheme letter: "B-PER" -> 'B', "O" -> 'O', anything else 0.
char tag_prefix(const std::string& tag) {
  if (tag == "O") return 'O';
  return tag.size() >= 2 && tag[1] == '-' ? tag[0] : 0;
}

// Checks each tag as it is read: it is in the label list, and the file does
// not mix BILOU's L-/U- with IOBES's or IOE's E-/S-. That is the mix
// train/metrics_entities.h's detect_scheme refuses; it sits above data/ in
// the layers, so this is a small check of its own for prefix-first tags.
class TagChecker {
 public:
  TagChecker(std::string file, const TagRules& rules) : file_(std::move(file)), rules_(rules) {}

  void check(const std::string& tag, int line) {
    check_label(tag, line);
    const char p = tag_prefix(tag);
    if (p == 'L' || p == 'U') remember(bilou_, tag, line);
    if (p == 'E' || p == 'S') remember(iobes_, tag, line);
    if (bilou_.line && iobes_.line)
      refuse(file_, line,
             "tags of two schemes are mixed: \"" + bilou_.tag + "\" (line " + std::to_string(bilou_.line) +
                 ") is BILOU, \"" + iobes_.tag + "\" (line " + std::to_string(iobes_.line) + ") is IOBES or IOE",
             "write every tag of the file in one scheme (BILOU uses L- and U-, IOBES uses E- and S-)");
  }

 private:
  struct Seen {
    std::string tag;
    int line = 0;
  };
  static void remember(Seen& seen, const std::string& tag, int line) {
    if (!seen.line) seen = {tag, line};
  }
  void check_label(const std::string& tag, int line) const {
    const auto& labels = rules_.labels;
    if (labels.empty() || std::find(labels.begin(), labels.end(), tag) != labels.end()) return;
    refuse(file_, line, "tag \"" + tag + "\" is not in the label list (" + joined(labels) + ")",
           "correct the tag, or add \"" + tag + "\" to the label list");
  }

  std::string file_;
  const TagRules& rules_;
  Seen bilou_, iobes_;
};

std::vector<std::string> split_whitespace(std::string_view line) {
  std::vector<std::string> fields;
  size_t i = 0;
  while (true) {
    i = line.find_first_not_of(" \t", i);
    if (i == std::string_view::npos) return fields;
    size_t end = std::min(line.find_first_of(" \t", i), line.size());
    fields.emplace_back(line.substr(i, end - i));
    i = end;
  }
}

// The CoNLL reader's state: the sentence being built and the file's column count.
class ConllParser {
 public:
  ConllParser(std::string file, const ConllColumns& columns, const TagRules& rules)
      : file_(std::move(file)), columns_(columns), tags_(file_, rules) {}

  void line(const Line& l) {
    if (std::string why = utf8_problem(l.text); !why.empty())
      refuse(file_, l.number, why, "save the file as UTF-8");
    std::vector<std::string> fields = split_whitespace(l.text);
    if (fields.empty() || fields[0] == "-DOCSTART-") return end_sentence();
    check_columns(fields.size(), l.number);
    const std::string& tag = columns_.tag ? fields[*columns_.tag] : fields.back();
    tags_.check(tag, l.number);
    if (current_.words.empty()) current_.line = l.number;
    current_.words.push_back(fields[columns_.word]);
    current_.tags.push_back(tag);
  }

  std::vector<TaggedSentence> finish() {
    end_sentence();
    return std::move(sentences_);
  }

 private:
  void end_sentence() {
    if (!current_.words.empty()) sentences_.push_back(std::move(current_));
    current_ = {};
  }

  // Every word line has the first one's column count: with the tag taken from
  // the last column, a shorter line would silently give another column's value.
  void check_columns(size_t count, int line) {
    const size_t needed = std::max(columns_.word, columns_.tag.value_or(1)) + 1;
    if (!first_count_) first_count_ = {count, line};
    const size_t expected = std::max(needed, first_count_->first);
    if (count >= needed && count == first_count_->first) return;
    refuse(file_, line,
           "the line has " + std::to_string(count) + " columns, expected " + std::to_string(expected) +
               (count < needed ? " (the word is column " + std::to_string(columns_.word) + ", the tag column " +
                                     (columns_.tag ? std::to_string(*columns_.tag) : std::string("the last")) + ")"
                               : " as on line " + std::to_string(first_count_->second)),
           "give every word line the same columns, separated by spaces or tabs (a word with a space in it "
           "cannot be written in CoNLL)");
  }

  std::string file_;
  ConllColumns columns_;
  TagChecker tags_;
  std::optional<std::pair<size_t, int>> first_count_;  // columns, line
  TaggedSentence current_;
  std::vector<TaggedSentence> sentences_;
};

// The strings of `key`; tags may also be label ids (Hugging Face datasets'
// ner_tags) when a label list gives their names.
std::vector<std::string> string_list(const nlohmann::json& row, const std::string& key, const TagRules* rules,
                                     const std::string& file, int line) {
  if (!row.contains(key) || !row[key].is_array())
    refuse(file, line, "no list under \"" + key + "\"", "write each line as {\"tokens\": [...], \"tags\": [...]}, or set the key names");
  std::vector<std::string> out;
  for (const nlohmann::json& v : row[key]) {
    if (v.is_string()) out.push_back(v.get<std::string>());
    else if (rules && v.is_number_unsigned() && v.get<size_t>() < rules->labels.size())
      out.push_back(rules->labels[v.get<size_t>()]);
    else
      refuse(file, line, "\"" + key + "\" holds " + v.dump() + ", not a string",
             rules && !rules->labels.empty() ? "write tags as label names or ids 0 to " + std::to_string(rules->labels.size() - 1)
                                             : "write every entry as a JSON string");
  }
  return out;
}

TaggedSentence jsonl_sentence(const Line& l, const std::string& file, const JsonlTagKeys& keys,
                              const TagRules& rules, TagChecker& tags) {
  const nlohmann::json row = parse_json(l.text, {file, l.number, "write one JSON object a line"});
  if (!row.is_object()) refuse(file, l.number, "the line is not a JSON object", "write one JSON object a line");
  TaggedSentence s{string_list(row, keys.words, nullptr, file, l.number),
                   string_list(row, keys.tags, &rules, file, l.number), l.number};
  if (s.words.empty())
    refuse(file, l.number, "the sentence has no words (\"" + keys.words + "\" is empty)",
           "remove the line, or give it its words and tags");
  if (s.words.size() != s.tags.size())
    refuse(file, l.number,
           "\"" + keys.words + "\" has " + std::to_string(s.words.size()) + " entries but \"" + keys.tags +
               "\" has " + std::to_string(s.tags.size()),
           "give every word exactly one tag");
  for (const std::string& tag : s.tags) tags.check(tag, l.number);
  return s;
}

}  // namespace

std::vector<TaggedSentence> parse_conll(std::string_view text, const std::string& file, const ConllColumns& columns,
                                        const TagRules& rules) {
  ConllParser parser(file, columns, rules);
  for (const Line& l : split_lines(text)) parser.line(l);
  return parser.finish();
}

std::vector<TaggedSentence> parse_tag_jsonl(std::string_view text, const std::string& file, const JsonlTagKeys& keys,
                                            const TagRules& rules) {
  TagChecker tags(file, rules);
  std::vector<TaggedSentence> sentences;
  for (const Line& l : split_lines(text)) {
    if (l.text.find_first_not_of(" \t") == std::string_view::npos) continue;
    if (std::string why = utf8_problem(l.text); !why.empty()) refuse(file, l.number, why, "save the file as UTF-8");
    sentences.push_back(jsonl_sentence(l, file, keys, rules, tags));
  }
  return sentences;
}

std::vector<TaggedSentence> read_conll(const std::string& path, const ConllColumns& columns, const TagRules& rules) {
  return parse_conll(read_text_file(path), path, columns, rules);
}

std::vector<TaggedSentence> read_tag_jsonl(const std::string& path, const JsonlTagKeys& keys, const TagRules& rules) {
  return parse_tag_jsonl(read_text_file(path), path, keys, rules);
}

}  // namespace runner
