#include "recipe/interpolate.h"

#include <cstdlib>

namespace runner {

bool interpolate_string(const std::string& in, std::string& out, std::string& error) {
  out.clear();
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '$' || i + 1 >= in.size()) {
      out += in[i];
      continue;
    }
    if (in[i + 1] == '$') {
      out += '$';
      ++i;
      continue;
    }
    if (in[i + 1] != '{') {
      out += in[i];
      continue;
    }
    size_t close = in.find('}', i + 2);
    if (close == std::string::npos) {
      error = "unterminated \"${\" in \"" + in + "\"; write \"$$\" for a literal dollar sign";
      return false;
    }
    std::string body = in.substr(i + 2, close - i - 2);
    size_t sep = body.find(":-");
    std::string name = body.substr(0, sep);
    const char* value = name.empty() ? nullptr : std::getenv(name.c_str());
    // Like the shell: ":-" also replaces a variable that is set but empty.
    bool use_value = value && (*value || sep == std::string::npos);
    if (use_value) {
      out += value;
    } else if (sep != std::string::npos) {
      out += body.substr(sep + 2);
    } else {
      error = "environment variable " + (name.empty() ? "(empty name)" : name) +
              " is not set and \"${" + body + "}\" gives no default";
      return false;
    }
    i = close;
  }
  return true;
}

void interpolate_env(Value& v, const std::string& key_path, Diagnostics& diags) {
  switch (v.type) {
    case Value::Type::String: {
      std::string out, error;
      if (interpolate_string(v.s, out, error))
        v.s = out;
      else
        diags.push_back(make_error(v.loc, key_path, error,
                                   "export the variable, or write ${NAME:-default}"));
      break;
    }
    case Value::Type::List:
      for (auto& item : v.list) interpolate_env(item, key_path, diags);
      break;
    case Value::Type::Table:
      for (auto& [k, child] : v.table)
        interpolate_env(child, key_path.empty() ? k : key_path + "." + k, diags);
      break;
    default: break;
  }
}

}  // namespace runner
