#include "util/input_file.h"

#include "util/diagnostic.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sys/stat.h>

namespace runner {
namespace {

[[noreturn]] void refuse(const InputFile& f, const std::string& what, const std::string& hint) {
  throw InputError(make_error(SourceLocation{f.path, 0, 0, {}}, f.named_by, what, hint));
}

}  // namespace

std::string file_kind(mode_t mode) {
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string human_bytes(uint64_t n) {
  if (n < 1024) return fmt::format("{} byte{}", n, n == 1 ? "" : "s");
  if (n < (uint64_t{1} << 20)) return fmt::format("{:.1f} KiB", static_cast<double>(n) / 1024);
  if (n < (uint64_t{1} << 30)) return fmt::format("{:.1f} MiB", static_cast<double>(n) / (1 << 20));
  return fmt::format("{:.1f} GiB", static_cast<double>(n) / (1 << 30));
}

std::string special_file_kind(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) return "";
  return file_kind(st.st_mode);
}

void check_input_file(const InputFile& f) {
  struct stat st {};
  if (::stat(f.path.c_str(), &st) != 0) {
    int err = errno;
    refuse(f, fmt::format("expected a readable file, found none ({})", std::strerror(err)),
           f.hint.empty() ? "check the path" : f.hint);
  }
  if (S_ISDIR(st.st_mode))
    refuse(f, "expected a regular file, found a directory",
           "name a file inside it" + (f.hint.empty() ? "" : "; " + f.hint));
  if (!S_ISREG(st.st_mode))
    refuse(f, fmt::format("expected a regular file, found {}", file_kind(st.st_mode)),
           "write the content to a file first and name that file");
  auto size = static_cast<uint64_t>(st.st_size);
  if (size > f.max_bytes)
    refuse(f, fmt::format("expected at most {}, found a file of {}", human_bytes(f.max_bytes),
                          human_bytes(size)),
           "this is too large for what it should hold; check that the right file is named");
}

std::string read_input_file(const InputFile& f) {
  check_input_file(f);
  std::ifstream in(f.path, std::ios::binary);
  if (!in)
    refuse(f, fmt::format("cannot open it ({})", std::strerror(errno)), "check its permissions");
  std::string text;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<size_t>(in.gcount()));
    if (text.size() > f.max_bytes)
      refuse(f, fmt::format("expected at most {}, but it grew past that while being read",
                            human_bytes(f.max_bytes)),
             "name a file that is not being written to");
  }
  if (in.bad()) refuse(f, "cannot read it (an I/O error)", "check the disk and the file");
  return text;
}

bool read_bounded_line(std::istream& in, std::string& line, const std::string& source,
                       long long line_number, size_t max_bytes) {
  line.clear();
  char chunk[1 << 16];
  for (;;) {
    in.getline(chunk, sizeof chunk);
    auto got = static_cast<size_t>(in.gcount());
    if (in.bad()) return false;
    // A full chunk without a newline sets failbit: keep reading the same line.
    bool partial = in.fail() && !in.eof() && got == sizeof chunk - 1;
    bool ended = !in.fail() && !in.eof();  // the newline was read (and counted in gcount)
    line.append(chunk, ended ? got - 1 : got);
    if (line.size() > max_bytes)
      throw InputError(make_error(
          SourceLocation{source, static_cast<int>(std::min<long long>(line_number, INT32_MAX)), 0, {}},
          "", fmt::format("expected lines of at most {}, found a longer one", human_bytes(max_bytes)),
          "each line holds one JSON object; check that this is a JSONL file"));
    if (partial) {
      in.clear();
      continue;
    }
    return ended || !line.empty();
  }
}

}  // namespace runner
