// A path option's value (a data file, a model or tokenizer folder, a file next
// to the recipe) resolved and checked: relative names start at the recipe's
// folder or at the data and model roots, a name that is not on disk may be
// fetched from the Hub, and pipes or devices are refused before anything reads them.
#pragma once

#include "hub/named_sources.h"
#include "recipe/resolve.h"

#include <string>

namespace runner {

// The absolute path a value names: ./ and ../ (and every FilePath) from the
// folder of the file that wrote it, other names under the data or model root.
std::string resolve_path_option(const OptionSpec& spec, const Value& v, const std::string& recipe_path);

// What hub::locate needs to find the value locally or fetch it by name.
hub::NameRequest path_name_request(const OptionSpec& spec, const Value& v, const std::string& key_path,
                                   const std::string& resolved);

// The resolved path, located (fetched when it names a Hub repository) when
// options.check_paths; every problem found goes to `diags`, naming the value's place.
nlohmann::ordered_json check_path_option(const OptionSpec& spec, const Value& v, const std::string& key_path,
                                         const ResolveOptions& options, Diagnostics& diags);

}  // namespace runner
