// Random and quasi-random search: [random]'s distributions drawn `samples`
// times, the same points for the same seed on every machine, each value inside
// its range, Halton's coordinates as worked by hand, and every malformed range
// refused with its place and the fix.
#include "catch.h"

#include "shared.h"
#include "sweep/expand.h"
#include "sweep/sampling.h"
#include "sweep/sweep_file.h"

#include <cmath>
#include <fstream>
#include <set>

using namespace runner;

namespace {

std::string header() {
  return "base = \"" + test::smoke_recipe() + "\"\nmetric = \"eval.f1\"\n";
}

SweepLoad load_text(const std::string& body) {
  std::string path = test::tmp_dir("sweep-sampling") + "/s.toml";
  std::ofstream(path) << header() << body;
  return load_sweep_file(path);
}

Expansion expand_text(const std::string& body) {
  SweepLoad load = load_text(body);
  INFO(format_all(load.diags));
  REQUIRE(load.sweep);
  return expand_sweep(*load.sweep);
}

const char* kSpace =
    "[random]\n"
    "\"optimizer.lr\" = { log_uniform = [1e-5, 1e-3] }\n"
    "\"optimizer.weight_decay\" = { uniform = [0.0, 0.1] }\n"
    "\"data.train_batch_size\" = { int = [8, 32] }\n"
    "\"model.hidden_dropout_prob\" = { choice = [0.1, 0.2] }\n";

const Value& value_of(const SweepPoint& p, const std::string& key) {
  for (const auto& a : p.varying)
    if (a.key == key) return a.value;
  FAIL("no " << key);
  static Value none;
  return none;
}

}  // namespace

TEST_CASE("Halton's coordinates are the radical inverses of the index", "[sweep]") {
  // Base 2: 1 -> 0.1b, 2 -> 0.01b, 3 -> 0.11b; base 3: 1 -> 1/3, 2 -> 2/3, 3 -> 0.01 (base 3) = 1/9.
  CHECK(radical_inverse(1, 2) == 0.5);
  CHECK(radical_inverse(2, 2) == 0.25);
  CHECK(radical_inverse(3, 2) == 0.75);
  CHECK(radical_inverse(6, 2) == 0.375);  // 110b -> 0.011b
  // Thirds and ninths are not exact in binary: one rounding per digit, two digits.
  CHECK(std::abs(radical_inverse(1, 3) - 1.0 / 3) < 1e-15);
  CHECK(std::abs(radical_inverse(2, 3) - 2.0 / 3) < 1e-15);
  CHECK(std::abs(radical_inverse(3, 3) - 1.0 / 9) < 1e-15);
}

TEST_CASE("a random sweep draws its samples inside each range, the same for the same seed", "[sweep]") {
  const std::string sampler = GENERATE(std::string("random"), std::string("halton"));
  INFO("sampler " << sampler);
  const std::string body = "samples = 12\nsampler = \"" + sampler + "\"\n" + kSpace;
  Expansion a = expand_text(body), b = expand_text(body);
  REQUIRE(a.diags.empty());
  REQUIRE(a.points.size() == 12);
  std::set<std::string> ids;
  for (size_t i = 0; i < a.points.size(); ++i) {
    CHECK(a.points[i].id == b.points[i].id);  // the same draws: a sweep started again finds its points
    ids.insert(a.points[i].id);
    const double lr = value_of(a.points[i], "optimizer.lr").f;
    CHECK((lr >= 1e-5 && lr <= 1e-3));
    const double wd = value_of(a.points[i], "optimizer.weight_decay").f;
    CHECK((wd >= 0.0 && wd <= 0.1));
    const Value& batch = value_of(a.points[i], "data.train_batch_size");
    CHECK(batch.type == Value::Type::Int);
    CHECK((batch.i >= 8 && batch.i <= 32));
    const double dropout = value_of(a.points[i], "model.hidden_dropout_prob").f;
    CHECK((dropout == 0.1 || dropout == 0.2));
  }
  CHECK(ids.size() == 12);
  Expansion other = expand_text("sample_seed = 5\n" + body);
  REQUIRE(other.points.size() == 12);
  CHECK(other.points[0].id != a.points[0].id);
}

TEST_CASE("log_uniform spreads over the decades and Halton covers them evenly", "[sweep]") {
  // 16 Halton points of a one-key space: the base-2 radical inverses of 1..16
  // are k/16 (k = 1..15) and 1/32, 8 in each half of [0, 1); the seed's shift
  // modulo 1 of points 1/16 apart moves at most one across the middle. So 8 +- 1
  // of the rates are in the lower decade [1e-5, 1e-4).
  Expansion ex = expand_text("samples = 16\nsampler = \"halton\"\n[random]\n"
                             "\"optimizer.lr\" = { log_uniform = [1e-5, 1e-3] }\n");
  REQUIRE(ex.points.size() == 16);
  int low_decade = 0;
  for (const auto& p : ex.points) low_decade += value_of(p, "optimizer.lr").f < 1e-4;
  CHECK((low_decade >= 7 && low_decade <= 9));
}

TEST_CASE("a small int and choice space gives its distinct points, fewer than samples", "[sweep]") {
  Expansion ex = expand_text("samples = 10\n[random]\n\"data.train_batch_size\" = { int = [8, 9] }\n"
                             "\"model.hidden_dropout_prob\" = { choice = [0.1, 0.2] }\n");
  REQUIRE(ex.diags.empty());
  CHECK(ex.points.size() == 4);  // 2 x 2 combinations, each once
}

TEST_CASE("sampled rows combine with the grid: each grid row gets every sample", "[sweep]") {
  Expansion ex = expand_text("samples = 3\n[grid]\n\"run.seed\" = [1, 2]\n[random]\n"
                             "\"optimizer.lr\" = { log_uniform = [1e-5, 1e-3] }\n");
  REQUIRE(ex.diags.empty());
  REQUIRE(ex.points.size() == 6);
  // The same three learning rates under each seed.
  for (size_t i = 0; i < 3; ++i)
    CHECK(value_of(ex.points[i], "optimizer.lr").f == value_of(ex.points[i + 3], "optimizer.lr").f);
}

TEST_CASE("malformed ranges and sample counts are refused with the place and the fix", "[sweep]") {
  struct Case {
    std::string body, key, says, fix;
  };
  const std::vector<Case> cases = {
      {"samples = 4\n[random]\n\"optimizer.lr\" = { uniform = [0.1, 0.01] }\n", "random.optimizer.lr.uniform",
       "not below high", "low below high"},
      {"samples = 4\n[random]\n\"optimizer.lr\" = { log_uniform = [0, 1e-3] }\n", "random.optimizer.lr.log_uniform",
       "not above 0", "both above 0"},
      {"samples = 4\n[random]\n\"data.train_batch_size\" = { int = [8.5, 32] }\n",
       "random.data.train_batch_size.int", "whole numbers", "{ int = [8, 32] }"},
      {"samples = 4\n[random]\n\"model.hidden_dropout_prob\" = { choice = [] }\n", "random.model.hidden_dropout_prob.choice",
       "empty list", "{ choice = [0.1, 0.2] }"},
      {"samples = 4\n[random]\n\"optimizer.lr\" = { normal = [0, 1] }\n", "random.optimizer.lr",
       "\"normal\", which is none", "log_uniform"},
      {"samples = 4\n[random]\n\"optimizer.lr\" = [1e-5, 1e-3]\n", "random.optimizer.lr", "expected a distribution",
       "log_uniform"},
      {"[random]\n\"optimizer.lr\" = { uniform = [0.1, 0.2] }\n", "samples", "samples is not set", "samples = 16"},
      {"samples = 4\n", "samples", "no [random] table", "[random]"},
      {"samples = \"4\"\n[random]\n\"optimizer.lr\" = { uniform = [0.1, 0.2] }\n", "samples", "whole number",
       "without quotes"},
      {"samples = 4\nsampler = \"sobol\"\n[random]\n\"optimizer.lr\" = { uniform = [0.1, 0.2] }\n", "sampler",
       "expected one of random, halton, found \"sobol\"", "sampler = \"random\""},
      {"samples = 4\n[grid]\n\"optimizer.lr\" = [1e-4]\n[random]\n\"optimizer.lr\" = { uniform = [0.1, 0.2] }\n",
       "random.optimizer.lr", "both sampled and", "one place"},
  };
  for (const auto& c : cases) {
    SweepLoad load = load_text(c.body);
    const std::string all = format_all(load.diags);
    INFO(c.body << "\n" << all);
    CHECK_FALSE(load.sweep);
    bool found = false;
    for (const auto& d : load.diags)
      found |= d.key_path == c.key && d.message.find(c.says) != std::string::npos &&
               (d.hint.find(c.fix) != std::string::npos || d.message.find(c.fix) != std::string::npos);
    CHECK(found);
    CHECK(all.find("s.toml:") != std::string::npos);  // the place: the file and its line
  }
}

// Draws are made in double precision: an int range past 2^53 is refused, and
// one up to it draws whole numbers inside the range.
TEST_CASE("an int range past 2^53 is refused; one within it draws inside its bounds", "[sweep]") {
  SweepLoad load = load_text("samples = 3\n[random]\n\"run.seed\" = { int = [0, 9223372036854775807] }\n");
  INFO(format_all(load.diags));
  CHECK_FALSE(load.sweep);
  CHECK_THAT(format_all(load.diags), Catch::Contains("random.run.seed.int") && Catch::Contains("2^53"));
  Expansion e = expand_text("samples = 8\n[random]\n\"run.seed\" = { int = [0, 9007199254740992] }\n");
  REQUIRE(e.points.size() == 8);
  for (const auto& p : e.points) {
    const Value& v = value_of(p, "run.seed");
    REQUIRE(v.type == Value::Type::Int);
    CHECK(v.i >= 0);
    CHECK(v.i <= 9007199254740992LL);
  }
}
