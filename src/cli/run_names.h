// A run named the way a user remembers it. `runner resume`, `report`, `export`
// and `compare` take a run directory, and also what `runner ls` prints and
// what made the run:
//   runs/NAME        the folder of one run name's runs: its newest run;
//   NAME             a run name (ls's NAME column, a sweep point's too): its newest run;
//   20261125T...-ab  a run folder's own name (the end of ls's DIR column);
//   recipe.toml      a recipe: the newest run of its run.name under its run.output_dir.
// Names are looked for under --runs DIR, $RUNNER_RUNS (folders separated by
// ':') and ./runs.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace runner {

// Whether an argument must name a run: a bare name (no '/') that is neither a
// path nor a run under the search folders is then refused with the folders
// searched. `MayBeOther`: it may name something else (predict's --model: a Hub id).
enum class RunArgument { MustBeRun, MayBeOther };

// `arg` itself when it is a run directory or names nothing this resolves; else
// the newest run directory it stands for, said on `err` so that the user sees
// which run was taken.
std::string run_dir_argument(const std::string& arg, std::ostream& err,
                             RunArgument kind = RunArgument::MustBeRun);

// The folders runs are looked for in: --runs's, $RUNNER_RUNS's, then ./runs.
std::vector<std::string> run_search_folders();

// The --runs folders of this command, searched before the others.
void search_runs_first_in(const std::vector<std::string>& folders);

// The folder `runner ls ARG` lists: a recipe's run.output_dir, ARG itself, or
// with no ARG the first of run_search_folders() that exists (else ./runs).
std::string runs_folder_argument(const std::string& arg);

}  // namespace runner
