#include "cli/recipe_input.h"

#include "util/diagnostic.h"
#include "util/input_file.h"

#include <fmt/format.h>

#include <sys/stat.h>

#include <iostream>
#include <iterator>

namespace runner {

bool names_standard_input(const std::string& path) {
  if (path == "-") return true;
  struct stat named {}, in {};
  return ::stat(path.c_str(), &named) == 0 && ::fstat(0, &in) == 0 && named.st_dev == in.st_dev &&
         named.st_ino == in.st_ino;
}

namespace {

std::optional<std::string>& taken_input() {
  static std::optional<std::string> taken;
  return taken;
}

// At most one byte past the limit, so that a stream without end (a terminal left
// open, /dev/zero as input) is refused instead of read until memory runs out.
std::string read_standard_input(const std::string& shown) {
  std::string text;
  char buffer[1 << 16];
  while (std::cin.read(buffer, sizeof buffer) || std::cin.gcount() > 0) {
    text.append(buffer, static_cast<size_t>(std::cin.gcount()));
    if (text.size() > kMaxDocumentBytes)
      throw InputError(make_error({shown, 0, 0, {}}, "",
                                  fmt::format("the recipe on standard input is larger than {}",
                                              human_bytes(kMaxDocumentBytes)),
                                  "pipe in the recipe itself"));
  }
  return text;
}

}  // namespace

RecipeRequest recipe_request(const std::string& path, bool stdin_allowed) {
  RecipeRequest request;
  request.path = path;
  if (!names_standard_input(path)) return request;
  if (!stdin_allowed)
    throw InputError(make_error({path, 0, 0, {}}, "",
                                "a recipe from standard input can be checked (validate) and printed "
                                "(print-config), not run: a run keeps a copy of its recipe file",
                                "write the recipe to a .toml or .yaml file and run that"));
  // Messages name it as the shell did; `-` would read as a stray dash.
  request.path = path == "-" ? "<stdin>" : path;
  request.text = read_standard_input(request.path);
  // An empty or closed standard input (a pipe whose writer failed, `<&-`) would
  // be a recipe of defaults only, and "valid".
  if (request.text->find_first_not_of(" \t\r\n") == std::string::npos)
    throw InputError(make_error({request.path, 0, 0, {}}, "",
                                "expected a recipe on standard input, found nothing (it is empty or closed)",
                                "pipe the recipe in (`cat recipe.toml | runner validate -`), or name the file"));
  taken_input() = request.text;
  return request;
}

const std::string* standard_input_taken() { return taken_input() ? &*taken_input() : nullptr; }

}  // namespace runner
