// Small regression and multi-label datasets written by the tests that train
// them: STS-B's layout (sentence1, sentence2, a float score) and JSONL lists of
// aspect names. The same bytes on every machine.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

namespace runner::test {

// Sentence i: three words chosen by i.
inline std::string task_sentence(int i) {
  static const std::vector<std::string> words = {"good", "bad",  "food", "price", "staff", "cheap",
                                                 "slow", "kind", "warm", "cold",  "fast",  "rude"};
  return words[static_cast<size_t>(i % 12)] + " " + words[static_cast<size_t>((i * 7 + 3) % 12)] + " " +
         words[static_cast<size_t>((i * 5 + 1) % 12)];
}

// train.tsv (48 rows) and dev.tsv (16) with STS-B's columns and a score in [0, 5].
inline void write_stsb_like(const std::string& dir) {
  std::filesystem::create_directories(dir);
  for (auto [split, first, n] : {std::tuple{"train", 0, 48}, std::tuple{"dev", 100, 16}}) {
    std::ofstream f(dir + "/" + split + ".tsv");
    f << "sentence1\tsentence2\tscore\n";
    for (int i = first; i < first + n; ++i)
      f << task_sentence(i) << "\t" << task_sentence(i + 1) << "\t" << (i % 11) * 0.5 << "\n";
  }
}

// The [data] lines that read write_stsb_like's folder as a regression.
inline std::string stsb_like_data_lines(const std::string& dir) {
  return "dataset = \"tsv\"\ndir = \"" + dir + "\"\nnum_labels = 1\n"
         "columns = { text_a = \"sentence1\", text_b = \"sentence2\", label = \"score\" }\n";
}

// train.jsonl and dev.jsonl whose "labels" list the aspects a sentence names.
inline void write_aspects(const std::string& dir) {
  std::filesystem::create_directories(dir);
  for (auto [split, first, n] : {std::tuple{"train", 0, 48}, std::tuple{"dev", 100, 16}}) {
    std::ofstream f(dir + "/" + split + ".jsonl");
    for (int i = first; i < first + n; ++i) {
      std::string s = task_sentence(i);
      nlohmann::json labels = nlohmann::json::array();
      for (const char* aspect : {"food", "price", "staff"})
        if (s.find(aspect) != std::string::npos) labels.push_back(aspect);
      f << nlohmann::json{{"text", s}, {"labels", labels}}.dump() << "\n";
    }
  }
}

// A recipe in `dir`/r.toml: bert-tiny on the CPU, 2 epochs of batches of 8,
// checkpoints every 4 steps, evaluations every 6, after `data_lines`.
inline std::string write_task_recipe(const std::string& dir, const std::string& data_lines) {
  std::ofstream(dir + "/r.toml") << "[run]\nname = \"task\"\nseed = 3\ndevice = \"cpu\"\n"
                                 << "[data]\n" << data_lines << "max_length = 16\ntrain_batch_size = 8\n"
                                 << "eval_batch_size = 8\n"
                                 << "[model]\npreset = \"bert-tiny\"\n[optimizer]\nlr = 1e-3\n"
                                 << "[train]\nepochs = 2\nlog_every = 2\ncheckpoint_every = 4\neval_every = 6\n";
  return dir + "/r.toml";
}

}  // namespace runner::test
