// pytorch_model.bin (torch.save zip format) against the same weights in safetensors.
#include "catch.h"

#include "golden.h"
#include "util/diagnostic.h"

#include <filesystem>
#include <fstream>

using namespace runner;
using runner::test::golden;

TEST_CASE("pytorch_model.bin: same names, order and bits as model.safetensors", "[model]") {
  auto bin = read_pytorch_bin_weights(golden("tiny_bert/pytorch_model.bin"));
  auto st = read_safetensors_weights(golden("tiny_bert/model.safetensors"));
  REQUIRE(bin.size() == 41);
  std::map<std::string, torch::Tensor> by_name(st.begin(), st.end());
  auto expected = test::read_json(golden("model_parity/expected.json"));
  auto order = expected.at("param_names_in_order").get<std::vector<std::string>>();
  for (size_t i = 0; i < bin.size(); ++i) {
    INFO(bin[i].first);
    CHECK(bin[i].first == order[i]);  // torch.save keeps state_dict order
    CHECK(bin[i].second.scalar_type() == torch::kFloat32);
    CHECK(torch::equal(bin[i].second, by_name.at(bin[i].first)));
  }
}

TEST_CASE("pytorch_model.bin: truncated or foreign files are clean errors", "[model]") {
  namespace fs = std::filesystem;
  std::string dir = test::tmp_dir("bin-hostile");
  std::string src = golden("tiny_bert/pytorch_model.bin");
  std::ifstream in(src, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  auto expect_error = [&](const std::string& name, const std::string& content, const std::string& what) {
    std::string path = dir + "/" + name;
    std::ofstream(path, std::ios::binary) << content;
    try {
      read_pytorch_bin_weights(path);
      FAIL("no error for " << name);
    } catch (const InputError& e) {
      std::string msg = e.what();
      INFO(msg);
      CHECK(msg.find(path) != std::string::npos);
      CHECK(msg.find(what) != std::string::npos);
    }
  };
  expect_error("cut.bin", bytes.substr(0, bytes.size() / 2), "truncated");
  expect_error("legacy.bin", std::string("\x80\x02\x8a\x0a", 4) + std::string(100, 'x'), "legacy");
  // The directory survives but the pickle is cut short.
  std::string pkl_cut = bytes;
  size_t stop = pkl_cut.find("Q\x4b\x00", 0);  // BINPERSID, BININT1 0 of the first tensor
  REQUIRE(stop != std::string::npos);
  pkl_cut[stop] = '\xfe';  // an opcode no pickle protocol defines
  expect_error("bad-opcode.bin", pkl_cut, "unsupported pickle opcode 0xfe");
}
