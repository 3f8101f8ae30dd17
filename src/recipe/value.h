// The recipe tree: what a TOML or YAML file said, with the file, line and
// column of every value. Both formats load into this one type.
#pragma once

#include "util/diagnostic.h"

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace runner {

struct Value {
  enum class Type { Null, Bool, Int, Float, String, List, Table };
  using List = std::vector<Value>;
  using Table = std::vector<std::pair<std::string, Value>>;  // file order

  Type type = Type::Null;
  bool b = false;
  long long i = 0;
  double f = 0.0;
  std::string s;  // a string's text; for a number that overflowed to inf, its source text
  List list;
  Table table;
  SourceLocation loc;

  static Value make_table(SourceLocation loc = {});
  static Value make_string(std::string s, SourceLocation loc = {});

  bool is_table() const { return type == Type::Table; }
  const Value* find(const std::string& key) const;
  Value* find(const std::string& key);
  void set(const std::string& key, Value v);  // replaces or appends
  bool erase(const std::string& key);

  std::string type_name() const;   // "integer", "table", ...
  std::string short_str() const;   // the value as a user would write it, shortened
  nlohmann::json to_json() const;
};

// The deepest value along a dotted key path ("optimizer.lr"): the value itself
// when every key exists, else the last table that does (for error locations).
const Value& deepest_along(const Value& root, const std::string& key_path);

// Deep merge: tables merge key by key, anything else in `over` replaces `base`.
void merge_into(Value& base, const Value& over);

}  // namespace runner
