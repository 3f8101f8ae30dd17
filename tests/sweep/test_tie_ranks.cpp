// Tied points rank alike (=1 and =1) in `sweep --status` and in the report:
// both rank with util/tie_ranks.h.
#include "catch.h"

#include "sweep/summary.h"
#include "util/tie_ranks.h"

#include <regex>

using namespace runner;

TEST_CASE("equal values share a rank marked =, a missing value keeps its place", "[sweep]") {
  using Labels = std::vector<std::string>;
  CHECK(tie_rank_labels({0.8, 0.8}) == Labels{"=1", "=1"});
  CHECK(tie_rank_labels({0.9, 0.7, 0.7, 0.6, std::nullopt, std::nullopt}) ==
        Labels{"1", "=2", "=2", "4", "5", "6"});
}

TEST_CASE("sweep --status ranks tied points as the report does", "[sweep]") {
  SweepTable t;
  t.sweep_name = "ties", t.metric = "eval.f1";
  for (const char* id : {"a", "b", "c"}) {
    PointRow r;
    r.id = id, r.status = "completed", r.best = id[0] == 'c' ? 0.5 : 0.8;
    t.rows.push_back(r);
  }
  PointRow failed;
  failed.id = "d", failed.status = "failed", failed.best = 0.5;  // a failed point ranks with nothing
  t.rows.push_back(failed);
  std::string md = render_markdown(t);
  INFO(md);
  CHECK(md.find("| =1 | a |") != std::string::npos);
  CHECK(md.find("| =1 | b |") != std::string::npos);
  CHECK(md.find("| 3 | c |") != std::string::npos);
  CHECK(md.find("| 4 | d |") != std::string::npos);
  std::string csv = render_csv(t);
  INFO(csv);
  CHECK(csv.find("\n=1,a,") != std::string::npos);
  CHECK(csv.find("\n=1,b,") != std::string::npos);
}
