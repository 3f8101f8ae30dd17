// A file a dataset is built from, as its publisher serves it, with the checksum
// it must have.
#pragma once

#include <string>

namespace runner::hub {

struct SourceFile {
  std::string name;         // the file's name where it is served: "CoLA.zip"
  std::string default_url;  // replaced by $<mirror variable>/<name> when that is set
  std::string algorithm;    // "sha256" or "md5"
  std::string digest;       // pinned: what the publisher's own file hashes to
};

}  // namespace runner::hub
