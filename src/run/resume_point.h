// Where a resumed run continues: its newest checkpoint that verifies. Free of LibTorch.
#pragma once

#include "run/run_dir.h"

#include <string>
#include <vector>

namespace runner {

// Where a resumed session starts: the newest checkpoint that verifies (each
// newer one that does not is named in a warning), or step 0 when there is none.
struct ResumePoint {
  std::string checkpoint;  // empty: from step 0
  long long step = 0;
  std::vector<std::string> warnings;
};
ResumePoint find_resume_point(const RunPaths& paths);

}  // namespace runner
