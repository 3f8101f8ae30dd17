// A sweep decides where its points' runs go and what they are
// called, so a recipe value for those is refused (not silently overridden), and
// `runner sweep` takes --set like `runner run`.
#include "catch.h"

#include "shared.h"

#include "sweep/expand.h"
#include "sweep/sweep_file.h"

#include <filesystem>
#include <fstream>

using namespace runner;

namespace {

using runner::test::smoke_recipe;

std::string write_sweep(const std::string& body) {
  std::string path = test::tmp_dir("sweep-keys") + "/s.toml";
  std::ofstream(path) << "base = \"" << smoke_recipe() << "\"\nmetric = \"eval.f1\"\n" << body;
  return path;
}

const Diagnostic* error_about(const SweepLoad& load, const std::string& key) {
  for (const auto& d : load.diags)
    if (d.key_path == key && d.severity == Severity::Error) return &d;
  return nullptr;
}

}  // namespace

TEST_CASE("run.output_dir is the sweep's folder under [set], and refused where it would be ignored", "[sweep]") {
  std::string dir = test::tmp_dir("sweep-keys-dirs");
  // Alone under [set], it is where the sweep goes (honoured).
  SweepLoad alone = load_sweep_file(write_sweep("[set]\n\"run.output_dir\" = \"" + dir + "/set\"\n"));
  REQUIRE(alone.sweep);
  CHECK(alone.sweep->output_dir == dir + "/set");
  // Beside the sweep's own output_dir, one of them would be ignored.
  SweepLoad both = load_sweep_file(write_sweep("output_dir = \"" + dir + "/own\"\n[set]\n\"run.output_dir\" = \"" +
                                               dir + "/set\"\n"));
  CHECK_FALSE(both.sweep);
  const Diagnostic* d = error_about(both, "run.output_dir");
  REQUIRE(d);
  CHECK(d->where.line == 5);
  CHECK_THAT(d->message, Catch::Contains("would be ignored"));
  CHECK_THAT(d->hint, Catch::Contains("output_dir = \"...\" at the sweep file's top level"));
  // Varied per point, it would take the runs out of the sweep's folder.
  for (const std::string& body : {std::string("[grid]\n\"run.output_dir\" = [\"a\", \"b\"]\n"),
                                  std::string("[zip]\n\"run.output_dir\" = [\"a\", \"b\"]\n"),
                                  std::string("points = [{\"run.output_dir\" = \"a\"}]\n")}) {
    SweepLoad load = load_sweep_file(write_sweep(body));
    INFO(body << format_all(load.diags));
    CHECK_FALSE(load.sweep);
    REQUIRE(error_about(load, "run.output_dir"));
    CHECK_THAT(error_about(load, "run.output_dir")->hint, Catch::Contains("at the sweep file's top level"));
  }
  SweepLoad name = load_sweep_file(write_sweep("[set]\n\"run.name\" = \"mine\"\n"));
  CHECK_FALSE(name.sweep);
  REQUIRE(error_about(name, "run.name"));
  CHECK_THAT(error_about(name, "run.name")->hint, Catch::Contains("name = \"...\" at the sweep file's top level"));
}

TEST_CASE("sweep --set joins [set], replacing the file's value, and refuses a varied key", "[sweep]") {
  std::string path = write_sweep("[set]\n\"train.epochs\" = 1\n[grid]\n\"optimizer.lr\" = [1e-3, 2e-3]\n");
  SweepLoad load = load_sweep_file(path, {"train.epochs=2", "train.max_steps=3"});
  INFO(format_all(load.diags));
  REQUIRE(load.sweep);
  Expansion ex = expand_sweep(*load.sweep);
  REQUIRE(ex.points.size() == 2);
  std::vector<std::string> args = ex.points[0].set_args();
  CHECK(std::count(args.begin(), args.end(), "train.epochs=2") == 1);
  CHECK(std::count(args.begin(), args.end(), "train.epochs=1") == 0);
  CHECK(std::count(args.begin(), args.end(), "train.max_steps=3") == 1);

  SweepLoad varied = load_sweep_file(path, {"optimizer.lr=5e-4"});
  CHECK_FALSE(varied.sweep);
  REQUIRE(error_about(varied, "optimizer.lr"));
  CHECK(error_about(varied, "optimizer.lr")->where.origin == "--set optimizer.lr=5e-4");

  auto dry = test::run_command(test::runner_exe() + " sweep --dry-run " + path + " --set train.epochs=2");
  INFO(dry.out);
  CHECK(dry.exit_code == 0);
  CHECK_THAT(dry.out, Catch::Contains("train.epochs") && Catch::Contains("| 2 |"));
  auto bad = test::run_command(test::runner_exe() + " sweep --dry-run " + path + " --set train.epochs=-2");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.out, Catch::Contains("train.epochs"));
}

TEST_CASE("a sweep file's output_dir starts at the file's folder, as its base does", "[sweep]") {
  const std::string dir = runner::test::tmp_dir("sweep_output_dir_rule") + "/sweeps";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/s.toml") << "name = \"s\"\nbase = \"" << runner::test::smoke_recipe()
                                 << "\"\nmetric = \"eval.f1\"\noutput_dir = \"../runs\"\n"
                                 << "[grid]\n\"optimizer.lr\" = [1e-4]\n";
  SweepLoad l = load_sweep_file(dir + "/s.toml");
  INFO(format_all(l.diags));
  REQUIRE(l.sweep);
  CHECK(std::filesystem::path(l.sweep->output_dir).lexically_normal() ==
        (std::filesystem::path(dir).parent_path() / "runs").lexically_normal());
}

// A sweep's name names its folder, its points' commands and Slurm jobs.
TEST_CASE("a sweep name with a space or a leading dash is refused on its line", "[sweep]") {
  for (const char* name : {"a b", "-x"}) {
    SweepLoad load = load_sweep_file(write_sweep(std::string("name = \"") + name + "\"\n[grid]\n\"run.seed\" = [1, 2]\n"));
    INFO(name << "\n" << format_all(load.diags));
    CHECK_FALSE(load.sweep);
    const Diagnostic* d = error_about(load, "name");
    REQUIRE(d);
    CHECK(d->where.line == 3);
    CHECK_THAT(d->message, Catch::Contains(name[0] == '-' ? "starts with \"-\"" : "contains a space"));
  }
  SweepLoad fine = load_sweep_file(write_sweep("name = \"lr-search_2.v1\"\n[grid]\n\"run.seed\" = [1, 2]\n"));
  INFO(format_all(fine.diags));
  CHECK(fine.sweep);
}
