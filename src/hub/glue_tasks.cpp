#include "hub/glue_tasks.h"

namespace runner::hub {
namespace {

const char* const kGlueData = "https://dl.fbaipublicfiles.com/glue/data/";

// A task served as one zip by GLUE's own host, holding <folder>/<split files>.
// The URLs and the zips' sha256 are the ones Hugging Face `datasets` records for
// its glue builder (datasets/glue/glue.py and dataset_infos.json); SST-2's MD5 is
// the one torchtext pins.
GlueTaskFiles zipped(std::string task, std::string folder, std::string zip, std::string algorithm,
                     std::string digest, std::vector<std::string> splits = {"train.tsv", "dev.tsv", "test.tsv"}) {
  SourceFile source{zip, kGlueData + zip, std::move(algorithm), std::move(digest)};
  return {std::move(task), std::move(folder), std::move(splits), {std::move(source)}};
}

// MRPC is not hosted by GLUE: it is built from Microsoft's text files, split by
// GLUE's dev ids (the digests are those `datasets` records).
GlueTaskFiles mrpc() {
  return {"mrpc",
          "MRPC",
          {"train.tsv", "dev.tsv", "test.tsv"},
          {{"msr_paraphrase_train.txt", "https://dl.fbaipublicfiles.com/senteval/senteval_data/msr_paraphrase_train.txt",
            "sha256", "60a9b09084528f0673eedee2b69cb941920f0b8cd0eeccefc464a98768457f89"},
           {"msr_paraphrase_test.txt", "https://dl.fbaipublicfiles.com/senteval/senteval_data/msr_paraphrase_test.txt",
            "sha256", "a04e271090879aaba6423d65b94950c089298587d9c084bf9cd7439bd785f784"},
           {"mrpc_dev_ids.tsv",
            "https://firebasestorage.googleapis.com/v0/b/mtl-sentence-representations.appspot.com/o/"
            "data%2Fmrpc_dev_ids.tsv?alt=media&token=ec5c0836-31d5-48f4-b431-7480817f1adc",
            "sha256", "971d7767d81b997fd9060ade0ec23c4fc31cbb226a55d1bd4a1bac474eb81dc7"}}};
}

std::vector<GlueTaskFiles> make_tasks() {
  return {
      zipped("cola", "CoLA", "CoLA.zip", "sha256", "f212fcd832b8f7b435fb991f101abf89f96b933ab400603bf198960dfc32cbff"),
      zipped("sst2", "SST-2", "SST-2.zip", "md5", "9f81648d4199384278b86e315dac217c"),
      mrpc(),
      // QQP-clean.zip: GLUE's re-release of QQP without its malformed rows; it unpacks to QQP/.
      zipped("qqp", "QQP", "QQP-clean.zip", "sha256", "40e7c862c04eb26ee04b67fd900e76c45c6ba8e6d8fab4f8f1f8072a1a3fbae0"),
      zipped("stsb", "STS-B", "STS-B.zip", "sha256", "e60a6393de5a8b5b9bac5020a1554b54e3691f9d600b775bd131e613ac179c85"),
      zipped("mnli", "MNLI", "MNLI.zip", "sha256", "e7c1d896d26ed6caf700110645df426cc2d8ebf02a5ab743d5a5c68ac1c83633",
             {"train.tsv", "dev_matched.tsv", "dev_mismatched.tsv", "test_matched.tsv", "test_mismatched.tsv"}),
      // QNLIv2.zip unpacks to QNLI/ (the first QNLI release was withdrawn).
      zipped("qnli", "QNLI", "QNLIv2.zip", "sha256", "e634e78627a29adaecd4f955359b22bf5e70f2cbd93b493f2d624138a0c0e5f5"),
      zipped("rte", "RTE", "RTE.zip", "sha256", "6bf86de103ecd335f3441bd43574d23fef87ecc695977a63b82d5efb206556ee"),
      zipped("wnli", "WNLI", "WNLI.zip", "sha256", "ae0e8e4d16f4d46d4a0a566ec7ecceccfd3fbfaa4a7a4b4e02848c0f2561ac46"),
  };
}

}  // namespace

const std::vector<GlueTaskFiles>& glue_tasks() {
  static const std::vector<GlueTaskFiles> tasks = make_tasks();
  return tasks;
}

const GlueTaskFiles* find_glue_task(const std::string& task) {
  for (const auto& t : glue_tasks())
    if (t.task == task) return &t;
  return nullptr;
}

}  // namespace runner::hub
