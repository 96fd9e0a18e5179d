// Sweep files (`simtlm sweep SWEEP.yaml`, docs/sweeps.md): named axes whose cartesian product is a list of
// jobs, each one `simtlm run` (or `simtlm compare`) with a stable id.
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "sweep/sweep_job.hpp"

namespace simtlm::sweep {

// A sweep file that cannot be used: "file:line: key: what is wrong".
class SweepError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One value of an axis: its name in the tables and what it adds to the job's command line.
struct AxisValue {
  std::string name;
  std::filesystem::path file;            // the launch file or machine configuration (absolute)
  std::vector<std::string> sets;         // --set path=value
  std::vector<std::string> launch_sets;  // --launch-set key=YAML
  std::vector<std::string> args;         // further arguments of the command
  uint32_t line = 0;                     // where the value is written
};

// The axes in product order; an axis the file does not name has one unnamed value that adds nothing.
inline const std::vector<std::string>& axis_keys() {
  static const std::vector<std::string> keys{"launch", "config", "overrides", "mechanism", "seed"};
  return keys;
}

struct SweepSpec {
  std::filesystem::path path;
  std::string command = "run";                         // run or compare
  std::string mode;                                    // "", timing or functional (run only)
  std::map<std::string, std::vector<AxisValue>> axes;  // by axis_keys()
  std::vector<std::map<std::string, std::string>>
      exclude;                                  // axis -> value name; a job matching all is left out
  std::vector<std::string> stats;               // dotted keys of each job's stats for results.csv
  std::map<std::string, std::string> baseline;  // axis -> value name (scripts/plot-sweep)
};

// Reads and checks a sweep file: unknown keys, missing files, globs that match nothing, names given twice
// and an empty product are errors with the file and line.
SweepSpec load_sweep_file(const std::filesystem::path& path);

// The jobs of the product in order (launch outermost, seed innermost), less the excluded ones. `version`
// (simtlm_version()) goes into every id, so a changed simulator never reuses an old result.
std::vector<JobSpec> expand_jobs(const SweepSpec& spec, const std::string& version);

// The running simtlm's version and the SHA-256 of its executable.
std::string simtlm_version();

// The sweep's description for the tools that read a sweep directory (scripts/plot-sweep): the axes with
// their value names, the stats keys, the baseline.
nlohmann::ordered_json sweep_summary(const SweepSpec& spec);

}  // namespace simtlm::sweep
