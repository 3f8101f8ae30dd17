// Files a user names (--input, data files, config.json, tokenizer files, run
// records, sweep files): each is checked in one place before it is read, so a
// directory, /dev/zero, a FIFO or a file of gigabytes is refused with a message
// instead of hanging or filling memory.
#pragma once

#include <cstdint>
#include <istream>
#include <string>

#include <sys/types.h>

namespace runner {

// Size limits by what the file holds. JSON documents and vocabularies are
// megabytes in practice (bert-base's tokenizer.json: 0.5 MB; the largest Hub
// tokenizers: ~20 MB); data splits are what a dataset needs, GLUE's largest 5 MB.
constexpr uint64_t kMaxDocumentBytes = uint64_t{256} << 20;  // JSON, vocab.txt, records
constexpr uint64_t kMaxDataFileBytes = uint64_t{8} << 30;    // TSV, CSV, JSONL splits
// One line of a line-oriented input (JSONL): a line longer than this is
// refused before it is parsed, so input without newlines cannot grow a line
// until memory runs out.
constexpr size_t kMaxLineBytes = size_t{64} << 20;

struct InputFile {
  std::string path;
  std::string named_by{};  // the flag or recipe key that named it ("--input", "data.dir"); may be empty
  uint64_t max_bytes = kMaxDocumentBytes;
  std::string hint{};    // the fix when the file is missing; a default is used when empty
};

// Throws InputError unless `f.path` is a regular file (symbolic links followed)
// of at most `f.max_bytes`, naming the path, what it is instead, and the fix.
void check_input_file(const InputFile& f);

// What a file that is not a regular one is, from its st_mode: "a symbolic link"
// (an lstat's), "a directory", "a FIFO (named pipe)", "a character device", ...
std::string file_kind(mode_t mode);

// What `path` is when it exists but is neither a regular file nor a folder
// ("a FIFO (named pipe)", "a character device", ...), else "": for paths that
// may name a folder, checked before anything opens them.
std::string special_file_kind(const std::string& path);

// check_input_file, then the whole file; also refuses a file that grows past
// the limit while it is read (a /proc file, a log being written).
std::string read_input_file(const InputFile& f);

// std::getline with a length limit: false at the end of input; throws
// InputError naming `source` and the line number when a line is longer than
// `max_bytes`.
bool read_bounded_line(std::istream& in, std::string& line, const std::string& source,
                       long long line_number, size_t max_bytes = kMaxLineBytes);

// "12.0 MiB", "3 bytes": sizes for messages.
std::string human_bytes(uint64_t n);

}  // namespace runner
