#include "fuzz_support.h"

#include "recipe/recipe.h"
#include "tokenizer/encoding.h"
#include "tokenizer/wordpiece_loader.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <unistd.h>

namespace runner::fuzz {
namespace fs = std::filesystem;

namespace {

std::string make_scratch() {
  const char* base = std::getenv("RUNNER_FUZZ_SCRATCH");
  std::string tmpl = std::string(base && *base ? base : "/tmp") + "/runner-fuzz-XXXXXX";
  fs::create_directories(fs::path(tmpl).parent_path());
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("fuzz: cannot create " + tmpl);
  return tmpl;
}

// A static whose destructor removes the folder: the process may run millions
// of inputs, but leaves nothing behind when it exits normally.
struct Scratch {
  std::string dir = make_scratch();
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

}  // namespace

const std::string& scratch_dir() {
  static Scratch scratch;
  return scratch.dir;
}

std::string write_scratch(const std::string& name, std::string_view bytes) {
  std::string path = scratch_dir() + "/" + name;
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("fuzz: cannot write " + path);
  return path;
}

void validate_recipe(const std::string& path, const std::vector<std::string>& overrides) {
  RecipeRequest request;
  request.path = path;
  request.overrides = overrides;
  request.check_paths = false;
  refusing_is_fine([&] { load_recipe(request, registry()); });
}

void load_and_encode(const std::string& path, const std::string& format) {
  // Accents, CJK, punctuation, unknown words and a long word: most paths of
  // the basic tokenizer and of the WordPiece loop.
  constexpr std::string_view a = "The film's na\u00efve \u6771\u4eac charm, unbelievably!";
  constexpr std::string_view b = "a ## [UNK] supercalifragilisticexpialidocious";
  refusing_is_fine([&] {
    auto tok = load_wordpiece({path, format, "auto"});
    EncodeOptions opts;
    opts.max_length = 24;
    encode(*tok, a, b, opts);
  });
}

}  // namespace runner::fuzz
