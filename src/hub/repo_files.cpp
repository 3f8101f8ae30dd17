#include "hub/repo_files.h"

#include "util/diagnostic.h"
#include "util/input_file.h"
#include "util/json_input.h"
#include "util/suggest.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>

namespace runner::hub {
namespace {

// `owner` says what `repo` is: "repository org/name", or "folder /path".
[[noreturn]] void missing(const std::string& owner, const std::string& repo, const std::string& what,
                          const std::string& hint) {
  throw RepoLacksFiles(make_error(SourceLocation{{}, 0, 0, repo}, "", owner + " has " + what, hint));
}

// The shard file names of a sharded checkpoint, each once, sorted.
std::vector<std::string> shard_names(const std::string& index_path, const std::string& owner,
                                     const std::string& repo) {
  std::string text, why;
  try {
    text = read_input_file({index_path});
  } catch (const InputError&) {
  }
  std::optional<nlohmann::json> parsed = try_parse_json(text, why);
  nlohmann::json j = parsed ? std::move(*parsed) : nlohmann::json();
  if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object())
    missing(owner, repo, "a shard index without a \"weight_map\" object (" + index_path + ")",
            "the index is damaged: delete it from the cache and fetch again");
  std::set<std::string> names;
  for (const auto& [tensor, file] : j["weight_map"].items())
    if (file.is_string()) names.insert(file.get<std::string>());
  return {names.begin(), names.end()};
}

struct Picker {
  const std::string& repo;
  std::string owner;
  const Prober& probe;
  FileSelection out;

  // false when the caller must stop (the file was Unknown).
  bool take(const std::string& file, FileProbe::State* state) {
    FileProbe p = probe(file);
    *state = p.state;
    if (p.state == FileProbe::Unknown) out.unknown = file;
    if (p.state == FileProbe::Present) out.files.emplace_back(file, p.path);
    return p.state != FileProbe::Unknown;
  }
};

// config.json, then the first weight file there (an index brings its shards).
void pick_model(Picker& k) {
  FileProbe::State s;
  if (!k.take("config.json", &s)) return;
  if (s == FileProbe::Missing) missing(k.owner, k.repo, "no config.json", "model.pretrained must name a model repository");
  for (const std::string& weights : weight_file_names()) {
    if (!k.take(weights, &s)) return;
    if (s == FileProbe::Missing) continue;
    if (is_shard_index(weights))
      for (const auto& shard : shard_names(k.out.files.back().second, k.owner, k.repo)) {
        if (!k.take(shard, &s)) return;
        if (s == FileProbe::Missing) missing(k.owner, k.repo, "no " + shard + ", a shard its index lists", "the repository is incomplete");
      }
    return;
  }
  std::vector<std::string> names = weight_file_names();
  std::string last = names.back();
  names.pop_back();
  missing(k.owner, k.repo, "no " + join(names) + " or " + last,
          "name a repository with PyTorch weights, or leave model.pretrained empty to train from scratch");
}

void pick_tokenizer(Picker& k) {
  FileProbe::State s;
  if (!k.take("tokenizer_config.json", &s)) return;
  if (!k.take("vocab.txt", &s) || s == FileProbe::Present) return;
  if (!k.take("tokenizer.json", &s) || s == FileProbe::Present) return;
  // DeBERTa-v2/v3 repositories ship only their SentencePiece model.
  if (!k.take("spm.model", &s)) return;
  if (s == FileProbe::Missing)
    missing(k.owner, k.repo, "neither vocab.txt nor tokenizer.json (nor spm.model)", "tokenizer.path must name a repository with vocab.txt (WordPiece), tokenizer.json (a Hugging Face fast tokenizer) or a DeBERTa spm.model");
}

}  // namespace

const std::vector<std::string>& weight_file_names() {
  static const std::vector<std::string> names = {"model.safetensors", "model.safetensors.index.json",
                                                 "pytorch_model.bin", "pytorch_model.bin.index.json"};
  return names;
}

bool is_shard_index(const std::string& weight_file) {
  const std::string suffix = ".index.json";
  return weight_file.size() > suffix.size() &&
         weight_file.compare(weight_file.size() - suffix.size(), suffix.size(), suffix) == 0;
}

const char* file_set_name(FileSet set) { return set == FileSet::Model ? "model" : "tokenizer"; }

namespace {

FileSelection select_with(FileSet set, const std::string& repo, const std::string& owner, const Prober& probe) {
  Picker k{repo, owner, probe, {}};
  if (set == FileSet::Model) pick_model(k);
  else pick_tokenizer(k);
  return k.out;
}

}  // namespace

FileSelection select_files(FileSet set, const std::string& repo, const Prober& probe) {
  return select_with(set, repo, "repository " + repo, probe);
}

FileSelection select_folder_files(FileSet set, const std::string& folder,
                                  const std::function<void(const std::string&, const FileProbe&)>& seen) {
  return select_with(set, folder, "folder " + folder, [&folder, &seen](const std::string& file) {
    std::string path = folder + "/" + file;
    std::error_code ec;
    FileProbe p = std::filesystem::is_regular_file(path, ec) ? FileProbe{FileProbe::Present, path}
                                                             : FileProbe{FileProbe::Missing, path};
    if (seen) seen(file, p);
    return p;
  });
}

}  // namespace runner::hub
