#include "hub/named_datasets.h"

#include "hub/dataset_download.h"

#include <filesystem>

namespace runner::hub {
namespace fs = std::filesystem;
namespace {

const char* const kSquad = "https://rajpurkar.github.io/SQuAD-explorer/dataset/";

SourceFile squad_file(const std::string& name, const std::string& sha256) {
  return {name, kSquad + name, "sha256", sha256};
}

// The URLs are those Hugging Face `datasets` reads (its conll2003 and squad
// builders); the sha256 of each file is the one several public projects pin.
std::vector<NamedDataset> make_datasets() {
  return {
      {"conll2003", "CoNLL-2003", "conll",
       {{"conll2003.zip", "https://data.deepai.org/conll2003.zip", "sha256",
         "96a104d174ddae7558bab603f19382c5fe02ff1da5c077a7f3ce2ced1578a2c3"}},
       "conll2003.zip",
       {"train.txt", "valid.txt", "test.txt"}},
      {"squad", "SQuAD v1.1", "squad_json",
       {squad_file("train-v1.1.json", "3527663986b8295af4f7fcdff1ba1ff3f72d07d61a20f487cb238a6ef92fd955"),
        squad_file("dev-v1.1.json", "95aa6a52d5d6a735563366753ca50492a658031da74f301ac5238b03966972c9")},
       "",
       {"train-v1.1.json", "dev-v1.1.json"}},
      {"squad_v2", "SQuAD v2.0", "squad_json",
       {squad_file("train-v2.0.json", "68dcfbb971bd3e96d5b46c7177b16c1a4e7d4bdef19fb204502738552dede002"),
        squad_file("dev-v2.0.json", "80a5225e94905956a6446d296ca1093975c4d3b3260f1d6c8f68bc2ab77182d8")},
       "",
       {"train-v2.0.json", "dev-v2.0.json"}},
  };
}

}  // namespace

const std::vector<NamedDataset>& named_datasets() {
  static const std::vector<NamedDataset> datasets = make_datasets();
  return datasets;
}

const NamedDataset* find_named_dataset(const std::string& name) {
  for (const auto& d : named_datasets())
    if (d.name == name) return &d;
  return nullptr;
}

std::string named_dataset_names() {
  std::string out;
  for (const auto& d : named_datasets()) out += (out.empty() ? "" : ", ") + d.name;
  return out;
}

Resolution fetch_named_dataset(const NamedDataset& dataset, const std::string& dataset_cache,
                               const HubSettings& settings) {
  DatasetFolderPlan plan;
  plan.name = dataset.name;
  plan.label = dataset.label;
  plan.dir = (fs::path(dataset_cache) / dataset.name).string();
  plan.split_files = dataset.files;
  plan.sources = dataset.sources;
  plan.mirror_variable = "RUNNER_DATASET_URL";
  plan.build = [&dataset](const std::string& sources, const std::string& out) {
    if (!dataset.zip.empty()) {
      std::vector<std::pair<std::string, std::string>> members;
      for (const auto& f : dataset.files) members.emplace_back(f, f);
      extract_zip_members(sources + "/" + dataset.zip, members, out);
      return;
    }
    for (const auto& f : dataset.files) fs::rename(fs::path(sources) / f, fs::path(out) / f);
  };
  return fetch_dataset_folder(plan, settings);
}

}  // namespace runner::hub
