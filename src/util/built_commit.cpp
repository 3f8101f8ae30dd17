#include "util/built_commit.h"

#include "runner_git_commit.h"

namespace runner {

const char* built_commit() { return RUNNER_GIT_COMMIT; }

}  // namespace runner
