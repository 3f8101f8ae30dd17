// Small made-up GLUE task folders in each task's own file layout, as the GLUE
// distribution ships them (and Hugging Face `datasets`' glue builder reads
// them): the same column order, headers (none in CoLA's train/dev.tsv), label
// spellings and split files, with sentences of a few words. The same bytes on
// every machine.
#pragma once

#include "task_files.h"

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace runner::test {

struct GlueFixture {
  std::string task;         // "mnli"
  std::string folder;       // "MNLI"
  std::vector<std::string> metrics;  // the official metrics the run must record, the best checkpoint's first
};

// Each task beside MRPC and SST-2 (which ../shared holds as GLUE ships them).
inline std::vector<GlueFixture> made_up_glue_tasks() {
  return {{"cola", "CoLA", {"mcc"}},           {"stsb", "STS-B", {"pearson", "spearman"}},
          {"qqp", "QQP", {"f1", "accuracy"}},  {"mnli", "MNLI", {"accuracy", "accuracy_mm"}},
          {"qnli", "QNLI", {"accuracy"}},      {"rte", "RTE", {"accuracy"}},
          {"wnli", "WNLI", {"accuracy"}}};
}

namespace glue_detail {

// Writes `header` (when not empty) and `n` rows made by `row(i)` from example `first` on.
inline void write_tsv(const std::string& path, const std::string& header, int first, int n,
                      const std::function<std::string(int)>& row) {
  std::ofstream f(path, std::ios::binary);
  if (!header.empty()) f << header << "\n";
  for (int i = first; i < first + n; ++i) f << row(i) << "\n";
}

inline std::string two(int i) { return task_sentence(i) + "\t" + task_sentence(i + 5); }
inline const char* entail(int i) { return i % 2 ? "entailment" : "not_entailment"; }
inline const char* nli(int i) { return i % 3 == 0 ? "entailment" : i % 3 == 1 ? "neutral" : "contradiction"; }
inline std::string parses(int i) {
  return "( " + task_sentence(i) + " )\t( " + task_sentence(i + 5) + " )\t(ROOT " + task_sentence(i) +
         ")\t(ROOT " + task_sentence(i + 5) + ")";
}

// The splits: train rows 0..23, dev rows 100..107, test rows 200..203.
inline void write_splits(const std::string& dir, const std::vector<std::string>& files,
                         const std::function<void(const std::string& path, const std::string& split, int first,
                                                  int n)>& one) {
  for (const auto& f : files) {
    std::string split = f.substr(0, f.size() - 4);
    int first = split.rfind("train", 0) == 0 ? 0 : split.rfind("dev", 0) == 0 ? 100 : 200;
    int n = first == 0 ? 24 : first == 100 ? 8 : 4;
    if (split == "dev_mismatched") first += 50;
    one(dir + "/" + f, split, first, n);
  }
}

}  // namespace glue_detail

// The task's folder under `root` (root/<FOLDER>), with its split files.
inline std::string write_glue_task(const std::string& root, const std::string& task) {
  using namespace glue_detail;
  std::string folder;
  for (const auto& t : made_up_glue_tasks())
    if (t.task == task) folder = t.folder;
  std::string dir = root + "/" + folder;
  std::filesystem::create_directories(dir);
  const std::vector<std::string> three = {"train.tsv", "dev.tsv", "test.tsv"};
  auto pair_task = [&](const std::string& labelled_header, const std::string& test_header,
                       const std::function<std::string(int)>& labelled_row) {
    write_splits(dir, three, [&](const std::string& path, const std::string& split, int first, int n) {
      if (split == "test") write_tsv(path, test_header, first, n, [](int i) { return std::to_string(i) + "\t" + two(i); });
      else write_tsv(path, labelled_header, first, n, labelled_row);
    });
  };
  if (task == "cola") {
    // source, label, original mark ("*" on an unacceptable sentence), sentence; no header.
    write_splits(dir, three, [](const std::string& path, const std::string& split, int first, int n) {
      if (split == "test")
        write_tsv(path, "index\tsentence", first, n, [](int i) { return std::to_string(i) + "\t" + task_sentence(i); });
      else
        write_tsv(path, "", first, n, [](int i) {
          return std::string("gj04\t") + (i % 2 ? "1\t\t" : "0\t*\t") + task_sentence(i);
        });
    });
  } else if (task == "stsb") {
    const std::string cols = "index\tgenre\tfilename\tyear\told_index\tsource1\tsource2\tsentence1\tsentence2";
    write_splits(dir, three, [&](const std::string& path, const std::string& split, int first, int n) {
      auto row = [split](int i) {
        std::string r = std::to_string(i) + "\tmain-captions\tMSRvid\t2012test\t" + std::to_string(1000 + i) +
                        "\tnone\tnone\t" + two(i);
        return split == "test" ? r : r + "\t" + std::to_string(i % 6) + ".000";
      };
      write_tsv(path, split == "test" ? cols : cols + "\tscore", first, n, row);
    });
  } else if (task == "qqp") {
    write_splits(dir, three, [](const std::string& path, const std::string& split, int first, int n) {
      if (split == "test")
        write_tsv(path, "id\tquestion1\tquestion2", first, n, [](int i) { return std::to_string(i) + "\t" + two(i); });
      else
        write_tsv(path, "id\tqid1\tqid2\tquestion1\tquestion2\tis_duplicate", first, n, [](int i) {
          return std::to_string(i) + "\t" + std::to_string(2 * i) + "\t" + std::to_string(2 * i + 1) + "\t" + two(i) +
                 "\t" + std::to_string(i % 2);
        });
    });
  } else if (task == "mnli") {
    const std::string cols = "index\tpromptID\tpairID\tgenre\tsentence1_binary_parse\tsentence2_binary_parse\t"
                             "sentence1_parse\tsentence2_parse\tsentence1\tsentence2";
    write_splits(dir, {"train.tsv", "dev_matched.tsv", "dev_mismatched.tsv", "test_matched.tsv", "test_mismatched.tsv"},
                 [&](const std::string& path, const std::string& split, int first, int n) {
                   auto start = [](int i) {
                     return std::to_string(i) + "\t" + std::to_string(3000 + i) + "\t" + std::to_string(3000 + i) +
                            "e\tfiction\t" + parses(i) + "\t" + two(i);
                   };
                   if (split.rfind("test", 0) == 0) return write_tsv(path, cols, first, n, start);
                   if (split == "train")
                     return write_tsv(path, cols + "\tlabel1\tgold_label", first, n,
                                      [&](int i) { return start(i) + "\t" + nli(i) + "\t" + nli(i); });
                   // The dev files carry five annotators' labels before gold_label.
                   write_tsv(path, cols + "\tlabel1\tlabel2\tlabel3\tlabel4\tlabel5\tgold_label", first, n, [&](int i) {
                     std::string l = nli(i);
                     return start(i) + "\t" + l + "\t" + l + "\t" + nli(i + 1) + "\t" + l + "\t" + l + "\t" + l;
                   });
                 });
  } else if (task == "qnli") {
    pair_task("index\tquestion\tsentence\tlabel", "index\tquestion\tsentence",
              [](int i) { return std::to_string(i) + "\t" + two(i) + "\t" + entail(i); });
  } else if (task == "rte") {
    pair_task("index\tsentence1\tsentence2\tlabel", "index\tsentence1\tsentence2",
              [](int i) { return std::to_string(i) + "\t" + two(i) + "\t" + entail(i); });
  } else if (task == "wnli") {
    pair_task("index\tsentence1\tsentence2\tlabel", "index\tsentence1\tsentence2",
              [](int i) { return std::to_string(i) + "\t" + two(i) + "\t" + std::to_string(i % 2); });
  }
  return dir;
}

}  // namespace runner::test
