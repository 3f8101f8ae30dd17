#include "recipe/parse.h"
#include "util/utf8.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

namespace runner {
namespace {

// A recipe has a few hundred values; aliases may repeat a subtree, and nested
// aliases multiply (ten lists of ten aliases each are 10^10 values). The tree
// is expanded only when it stays under these.
constexpr long long kMaxYamlValues = 100000;
constexpr long long kMaxYamlDepth = 64;

SourceLocation where(const YAML::Mark& m, const std::string& path) {
  if (m.is_null()) return SourceLocation{path, 0, 0, {}};
  return SourceLocation{path, m.line + 1, m.column + 1, {}};
}

// The alias name at a mark ("*a9"), read from the text, as the parser keeps only ids.
std::string alias_at(const std::string& text, const YAML::Mark& m) {
  if (m.pos < 0 || static_cast<size_t>(m.pos) >= text.size() || text[m.pos] != '*') return "alias";
  size_t end = text.find_first_of(" \t\r\n,[]{}", m.pos);
  return text.substr(m.pos, end == std::string::npos ? std::string::npos : end - m.pos);
}

// Walks the parser's events before any tree is built, counting the values and
// the depth the tree would have once every alias is expanded, and the
// documents. Stops at the first problem.
class ShapeCheck : public YAML::EventHandler {
 public:
  ShapeCheck(const std::string& text, const std::string& path) : text_(text), path_(path) {}

  struct Stop {};
  std::optional<Diagnostic> problem;

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents_ < 2) return;
    fail(mark, "", "a second YAML document starts here; a recipe is one document, and the rest "
                   "would be ignored unchecked",
         "remove the \"---\" line and what follows it, or move those keys into the first document");
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { leaf(mark, anchor); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                const std::string&) override {
    leaf(mark, anchor);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    for (const Open& o : open_)
      if (o.anchor == anchor)
        fail(mark, "", "alias " + alias_at(text_, mark) + " refers to a value that contains it, "
                       "which would never end", "alias a value defined before, outside this one");
    Shape s = shapes_.count(anchor) ? shapes_[anchor] : Shape{1, 1};
    add(mark, s, alias_at(text_, mark));
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnMapEnd() override { close(); }

 private:
  struct Shape {
    long long values, depth;
  };
  struct Open {
    YAML::Mark mark;
    YAML::anchor_t anchor;
    Shape shape;  // so far: the container and its children
  };

  const std::string& text_;
  const std::string& path_;
  int documents_ = 0;
  std::vector<Open> open_;
  std::map<YAML::anchor_t, Shape> shapes_;

  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& key, std::string message,
                         std::string hint) {
    problem = make_error(where(mark, path_), key, std::move(message), std::move(hint));
    throw Stop{};
  }
  void leaf(const YAML::Mark& mark, YAML::anchor_t anchor) {
    if (anchor) shapes_[anchor] = {1, 1};
    add(mark, {1, 1}, "");
  }
  // Refused as it opens: the parser recurses once per level, so 100,000 levels
  // would exhaust the stack before a value deep inside was reached.
  void open(const YAML::Mark& mark, YAML::anchor_t anchor) {
    if (static_cast<long long>(open_.size()) >= kMaxYamlDepth)
      fail(mark, "", fmt::format("a list or mapping here is nested more than {} levels deep", kMaxYamlDepth),
           "a recipe is sections of options a few levels deep: flatten the nesting");
    open_.push_back({mark, anchor, {1, 0}});
  }
  void close() {
    Open o = open_.back();
    open_.pop_back();
    o.shape.depth += 1;
    if (o.anchor) shapes_[o.anchor] = o.shape;
    add(o.mark, o.shape, "");
  }
  // Adds a finished child to the open container; counts saturate at the limit.
  void add(const YAML::Mark& mark, Shape s, const std::string& alias) {
    long long values = s.values, depth = s.depth + static_cast<long long>(open_.size());
    if (!open_.empty()) {
      Shape& parent = open_.back().shape;
      parent.values = std::min(kMaxYamlValues + 1, parent.values + s.values);
      parent.depth = std::max(parent.depth, s.depth);
      values = parent.values;
    }
    std::string what = alias.empty() ? "this value" : "alias " + alias;
    if (values > kMaxYamlValues)
      fail(mark, "", fmt::format("{} makes the recipe more than {} values once its aliases are "
                                 "expanded (nested aliases multiply)", what, kMaxYamlValues),
           "write the values out, or alias a smaller part; a recipe needs a few hundred values");
    if (depth > kMaxYamlDepth)
      fail(mark, "", fmt::format("{} nests the recipe more than {} levels deep once its aliases "
                                 "are expanded", what, kMaxYamlDepth),
           "a recipe is sections of options: flatten the nesting");
  }
};

// The recipe's shape problem (a second document, an alias bomb), if any.
std::optional<Diagnostic> check_shape(const std::string& text, const std::string& path) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  ShapeCheck check(text, path);
  try {
    while (parser.HandleNextDocument(check)) {}
  } catch (const ShapeCheck::Stop&) {
  }
  return check.problem;
}

// A plain integer or float. An integer past 64 bits stays the number it is (a float
// that remembers its text), so the option's check names the key and the value as written.
Value number_scalar(const std::string& s, bool integer) {
  Value v;
  errno = 0;
  if (integer) {
    long long i = std::strtoll(s.c_str(), nullptr, 10);
    if (errno != ERANGE) {
      v.type = Value::Type::Int;
      v.i = i;
      return v;
    }
  }
  v.type = Value::Type::Float;
  v.f = std::strtod(s.c_str(), nullptr);
  if (integer || !std::isfinite(v.f)) v.s = s;  // "1e999", "99999999999999999999"
  return v;
}

// YAML 1.2 core schema resolution of plain scalars; quoted scalars stay strings.
Value plain_scalar(const std::string& s) {
  static const std::regex int_re(R"([-+]?[0-9]+)");
  static const std::regex float_re(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
  Value v;
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return v;
  if (s == "true" || s == "True" || s == "TRUE" || s == "false" || s == "False" || s == "FALSE") {
    v.type = Value::Type::Bool;
    v.b = s[0] == 't' || s[0] == 'T';
  } else if (std::regex_match(s, int_re)) {
    return number_scalar(s, true);
  } else if (std::regex_match(s, float_re)) {
    return number_scalar(s, false);
  } else if (s == ".inf" || s == "+.inf" || s == ".Inf" || s == ".INF") {
    v.type = Value::Type::Float;
    v.f = INFINITY;
  } else if (s == "-.inf" || s == "-.Inf" || s == "-.INF") {
    v.type = Value::Type::Float;
    v.f = -INFINITY;
  } else if (s == ".nan" || s == ".NaN" || s == ".NAN") {
    v.type = Value::Type::Float;
    v.f = NAN;
  } else {
    v.type = Value::Type::String;
    v.s = s;
  }
  return v;
}

Value convert(const YAML::Node& node, const std::string& path, Diagnostics& diags) {
  Value v;
  SourceLocation loc = where(node.Mark(), path);
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      v.type = Value::Type::Table;
      std::set<std::string> seen;
      for (const auto& kv : node) {
        std::string key = kv.first.Scalar();
        if (!seen.insert(key).second) {
          diags.push_back(make_error(where(kv.first.Mark(), path), key,
                                     "this key is defined twice in the same table",
                                     "keep one of the two definitions"));
          continue;
        }
        Value c = convert(kv.second, path, diags);
        if (c.is_table()) c.loc = where(kv.first.Mark(), path);
        v.table.emplace_back(key, std::move(c));
      }
      break;
    }
    case YAML::NodeType::Sequence:
      v.type = Value::Type::List;
      for (const auto& child : node) v.list.push_back(convert(child, path, diags));
      break;
    case YAML::NodeType::Scalar:
      if (node.Tag() == "!")
        v = Value::make_string(node.Scalar());
      else
        v = plain_scalar(node.Scalar());
      break;
    default: break;  // Null / Undefined
  }
  v.loc = loc;
  return v;
}

}  // namespace

ParsedFile parse_yaml_text(const std::string& text, const std::string& path) {
  ParsedFile out;
  if (std::optional<InvalidUtf8> bad = first_invalid_utf8(text)) {
    out.diags.push_back(make_error(SourceLocation{path, bad->line, bad->column, {}}, "",
                                   bad->what() + ": a recipe is UTF-8 text",
                                   "save the file as UTF-8 (e.g. `iconv -f latin1 -t utf-8`)"));
    return out;
  }
  try {
    if (std::optional<Diagnostic> problem = check_shape(text, path)) {
      out.diags.push_back(*problem);
      return out;
    }
    YAML::Node doc = YAML::Load(text);
    if (doc.IsNull()) {
      out.root = Value::make_table(SourceLocation{path, 1, 1, {}});
    } else if (!doc.IsMap()) {
      out.diags.push_back(make_error(where(doc.Mark(), path), "",
                                     "a recipe must be a mapping of sections at the top level",
                                     "start the file with e.g. `run:` on its own line"));
    } else {
      out.root = convert(doc, path, out.diags);
      out.root->loc = SourceLocation{path, 1, 1, {}};
    }
  } catch (const YAML::Exception& e) {
    out.diags.push_back(
        make_error(where(e.mark, path), "", fmt::format("YAML syntax error: {}", e.msg)));
  }
  return out;
}

}  // namespace runner
