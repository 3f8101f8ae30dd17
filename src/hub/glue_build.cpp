// Turning GLUE's original source files into the task's train/dev/test.tsv.
#include "hub/glue_download.h"

#include "hub/dataset_download.h"

#include "util/diagnostic.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <utility>
#include <vector>

namespace runner::hub {
namespace fs = std::filesystem;
namespace {

[[noreturn]] void bad_source(const std::string& file, int line, const std::string& what) {
  throw InputError(make_error(SourceLocation{file, line, 0, {}}, "", what,
                              "the source file is not GLUE's: delete it from $RUNNER_CACHE/datasets and fetch again"));
}

// Python's str.strip() on the ASCII whitespace these files hold.
std::string strip(const std::string& s) {
  const char* ws = " \t\r\n\v\f";
  size_t first = s.find_first_not_of(ws);
  if (first == std::string::npos) return {};
  return s.substr(first, s.find_last_not_of(ws) - first + 1);
}

std::vector<std::string> split_tabs(const std::string& s) {
  std::vector<std::string> out(1);
  for (char c : s) {
    if (c == '\t') out.emplace_back();
    else out.back() += c;
  }
  return out;
}

std::ifstream open_in(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) bad_source(path, 0, "cannot read the GLUE source file");
  return in;
}

std::ofstream open_out(const fs::path& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) bad_source(path.string(), 0, "cannot write the GLUE task file");
  return out;
}

// (#1 ID, #2 ID) pairs of the dev split, one "id1\tid2" line each.
std::set<std::pair<std::string, std::string>> read_dev_ids(const std::string& path) {
  std::ifstream in = open_in(path);
  std::set<std::pair<std::string, std::string>> ids;
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    auto f = split_tabs(strip(line));
    ++n;
    if (f.size() != 2) bad_source(path, n, fmt::format("expected 2 tab-separated ids, found {} fields", f.size()));
    ids.emplace(f[0], f[1]);
  }
  return ids;
}

// Each row after the header as its 5 fields: label (or quality), id1, id2, s1, s2.
template <typename Fn>
void for_each_row(std::ifstream& in, const std::string& path, Fn&& fn) {
  int n = 1;
  for (std::string line; std::getline(in, line);) {
    auto f = split_tabs(strip(line));
    ++n;
    if (f.size() != 5) bad_source(path, n, fmt::format("expected 5 tab-separated fields, found {}", f.size()));
    fn(f);
  }
}

}  // namespace

void build_mrpc(const std::string& train_txt, const std::string& test_txt, const std::string& dev_ids_tsv,
                const std::string& out_dir) {
  const auto dev_ids = read_dev_ids(dev_ids_tsv);
  std::ifstream train_in = open_in(train_txt);
  std::string header;
  std::getline(train_in, header);  // kept as is, byte-order mark included, as GLUE's script writes it
  std::ofstream train = open_out(fs::path(out_dir) / "train.tsv"), dev = open_out(fs::path(out_dir) / "dev.tsv");
  train << header << '\n';
  dev << header << '\n';
  for_each_row(train_in, train_txt, [&](const std::vector<std::string>& f) {
    std::ofstream& to = dev_ids.count({f[1], f[2]}) ? dev : train;
    to << f[0] << '\t' << f[1] << '\t' << f[2] << '\t' << f[3] << '\t' << f[4] << '\n';
  });
  std::ifstream test_in = open_in(test_txt);
  std::getline(test_in, header);
  std::ofstream test = open_out(fs::path(out_dir) / "test.tsv");
  test << "index\t#1 ID\t#2 ID\t#1 String\t#2 String\n";
  long index = 0;
  for_each_row(test_in, test_txt, [&](const std::vector<std::string>& f) {
    test << index++ << '\t' << f[1] << '\t' << f[2] << '\t' << f[3] << '\t' << f[4] << '\n';
  });
  if (!train || !dev || !test) bad_source(out_dir, 0, "cannot write the MRPC task files");
}

void extract_glue_zip(const std::string& zip_path, const std::string& folder, const std::vector<std::string>& files,
                      const std::string& out_dir) {
  std::vector<std::pair<std::string, std::string>> members;
  for (const std::string& split : files) members.emplace_back(folder + "/" + split, split);
  extract_zip_members(zip_path, members, out_dir);
}

}  // namespace runner::hub
