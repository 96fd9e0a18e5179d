// The subcommands of the simtlm program. Each returns the process exit code; errors are thrown as exceptions
// and reported by sc_main.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace simtlm::launch {
struct SessionOptions;
}

namespace simtlm::cli {

// Session options of the command line: host references from workloads/reference, the given budget.
launch::SessionOptions session_options(uint64_t budget, bool capture_printf);

struct RunArgs {
  std::filesystem::path launch;
  std::filesystem::path out;             // empty: out/<launch file stem>
  std::filesystem::path config;          // machine description: runs the timing model
  std::string mode;                      // "functional" or "timing"; empty: timing when a config is given
  std::vector<std::string> overrides;    // --set path=value on top of the config
  std::vector<std::string> launch_sets;  // --launch-set key=YAML: top-level keys of the launch file replaced
  std::filesystem::path trace_vcd;
  std::filesystem::path trace_warps;
  std::string rtl;         // --rtl: comma-separated units that run as Verilated RTL
  bool rtl_check = false;  // --rtl-check: run C++ model and RTL side by side
  uint64_t budget = 0;
  std::string out_of_bounds;  // "", "error" or "warn"
  bool quiet = false;
  // --progress: the progress line on stderr even when it is no terminal.
  bool progress = false;
};
int run_command(const RunArgs& args);
// Session options of a run: the budget, the host references, --out-of-bounds and the progress line.
launch::SessionOptions run_session_options(const RunArgs& args, bool capture_printf);
// A launch sequence (launches:) on the functional model (sc_main/sequence_command.cpp).
int run_sequence_command(const RunArgs& args);
// A launch sequence on the timing model, in one SystemC simulation (sc_main/sequence_command.cpp).
int run_sequence_timing_command(const RunArgs& args);
// The timing-mode half of run_command (sc_main/timing_command.cpp).
int run_timing_command(const RunArgs& args);

struct DemoArgs {
  std::filesystem::path workloads = "workloads";
  // One output set, replaced whole by the next demo: not "out", which holds the runs' out/<launch file stem>.
  std::filesystem::path out = "out/demo";
  std::filesystem::path config = "configs/default.yaml";  // machine of the timing table
};
int demo_command(const DemoArgs& args);

// The demo's second table: every workload on the timing model (sc_main/demo_timing.cpp). Returns false when
// a run failed or its outputs differ from the functional run's.
struct DemoTimingInput {
  std::filesystem::path launch;
  std::string workload;
  std::map<std::string, std::string> functional_sha256;
};
bool print_timing_table(const std::vector<DemoTimingInput>& inputs, const std::filesystem::path& config);
// The demo's third table: compaction under TBC and lane permutations for a few kernels
// (sc_main/demo_compaction.cpp). Returns false when a run failed.
bool print_compaction_table(const std::filesystem::path& workloads, const std::filesystem::path& config);

struct CompareArgs {
  std::filesystem::path launch;
  std::filesystem::path out;  // empty: out/<launch file stem>-compare
  std::string permutations = "all";
  uint64_t seed = 1;  // the random permutation's
  uint64_t budget = 0;
  std::filesystem::path config;  // also time every mechanism on this machine
  bool paths = false;            // also write every dynamic path to paths.jsonl
  std::string rtl;               // permutation and/or compactor as Verilated RTL
  bool rtl_check = false;
  std::vector<std::string> launch_sets;  // --launch-set key=YAML, as for run
  bool quiet = false;
};
// `simtlm compare` (sc_main/compare_command.cpp).
int compare_command(const CompareArgs& args);

int check_command(const std::filesystem::path& launch);

// Validates a machine configuration against the schema (models/config); throws ConfigError.
void check_machine_config(const std::filesystem::path& path);

// `simtlm config`: validates a file and prints its parameters, or prints the parameter reference.
int config_command(const std::filesystem::path& path, bool markdown);

}  // namespace simtlm::cli
