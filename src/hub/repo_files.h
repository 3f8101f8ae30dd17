// Which files of a repository a run needs, picked as transformers picks them:
// a model is config.json and the first of weight_file_names() there (with the
// shards an .index.json lists); a tokenizer is tokenizer_config.json (when the
// repo has one) and vocab.txt, else tokenizer.json.
#pragma once

#include "util/diagnostic.h"

#include <functional>
#include <string>
#include <vector>

namespace runner::hub {

enum class FileSet { Model, Tokenizer };

// The weight files of a model folder or repository, in the order they are
// looked for: model.safetensors, model.safetensors.index.json,
// pytorch_model.bin, pytorch_model.bin.index.json. The one list that the Hub
// file picker, `validate`, `fetch` and the weight loader all read.
const std::vector<std::string>& weight_file_names();

bool is_shard_index(const std::string& weight_file);  // an .index.json that lists shards

// What a source knows of one file: there (at `path`), known to be absent, or
// not known (not in the cache: only the server can tell).
struct FileProbe {
  enum State { Present, Missing, Unknown } state = Unknown;
  std::string path;
};
using Prober = std::function<FileProbe(const std::string& file)>;

struct FileSelection {
  std::vector<std::pair<std::string, std::string>> files;  // repo file -> local path
  std::string unknown;  // the first file the source could not tell about; empty when complete
};

// The repository itself lacks a file a model (or a tokenizer) needs: it is not
// one. Other errors (an incomplete cache offline, the network) say nothing of
// what the repository is; `runner fetch` of a Hub id tells the two apart.
class RepoLacksFiles : public InputError {
 public:
  using InputError::InputError;
};

// Asks `probe` about files in order and stops at the first Unknown. A required
// file that is Missing is a RepoLacksFiles naming `repo` and the file.
FileSelection select_files(FileSet set, const std::string& repo, const Prober& probe);

// The same choice in a local folder: each file is there or missing, and a
// missing required one is a RepoLacksFiles that names the folder. `seen`, when
// given, hears of every file looked for, in order, with what was found.
FileSelection select_folder_files(FileSet set, const std::string& folder,
                                  const std::function<void(const std::string&, const FileProbe&)>& seen = {});

const char* file_set_name(FileSet set);  // "model", "tokenizer"

}  // namespace runner::hub
