// `simtlm sweep` and the hidden `simtlm sweep-task` of the Slurm backend's array tasks.
#pragma once

#include <filesystem>
#include <string>

namespace simtlm::cli {

struct SweepArgs {
  std::filesystem::path sweep_file;
  std::filesystem::path out;     // empty: out/<sweep file stem>
  std::filesystem::path status;  // --status DIR: print and exit
  unsigned jobs = 0;             // 0: the number of cores
  bool retry_failed = false;
  bool prune = false;  // remove job directories the plan no longer uses
  std::string backend = "local";
  std::string partition, time, mem;
  unsigned chunk = 1;
  bool resume = false;
  bool progress = false;
  bool quiet = false;
};
int sweep_command(const SweepArgs& args);

struct SweepTaskArgs {
  std::filesystem::path dir;
  std::filesystem::path list;
  unsigned index = 0;
  unsigned chunk = 1;
};
int sweep_task_command(const SweepTaskArgs& args);

}  // namespace simtlm::cli
