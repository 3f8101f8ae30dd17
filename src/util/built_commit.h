// The commit the runner was built from ("unknown" outside a checkout).
#pragma once

namespace runner {

// Compiled alone (built_commit.cpp, its own library in meson.build): the commit
// changes at every build, and only this one file is then compiled again.
const char* built_commit();

}  // namespace runner
