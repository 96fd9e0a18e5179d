// The subcommands of the simtlm program. Each returns the process exit code; errors are thrown as exceptions
// and reported by sc_main.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace CLI {
class App;
}

#include "models/launch/session.hpp"
#include "sim/herding_run.hpp"
#include "sim/timing_run.hpp"

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
  sim::HerdingCli herding;  // --herd-* (docs/herding.md)
};
// `herd-safety` and `herd-profile` (sc_main/herd_commands.cpp): `action` is set to the parsed command's run.
void add_herd_commands(CLI::App& app, std::function<int()>& action);
// `mem-replay` (sc_main/replay_command.cpp).
void add_replay_command(CLI::App& app, std::function<int()>& action);
// Descriptors 0-2 opened on /dev/null when closed, SIGPIPE ignored, and a one-line message on SIGINT, SIGTERM
// and SIGHUP before the process ends with the signal (sc_main/process_guards.cpp).
void install_process_guards();
// Every unsigned, signed and real option of `app` and its subcommands refuses negative (unsigned and real),
// over-long, non-decimal and non-finite values, naming the option (sc_main/numeric_options.cpp).
void guard_numeric_options(CLI::App& app);
// The --herd-* options of run and compare (sc_main/herding_options.cpp).
void add_herding_options(CLI::App& command, sim::HerdingCli& herding);

// A run's launch file and session options with its herding (if any) installed.
struct PreparedRun {
  launch::Launch launch;
  launch::SessionOptions options;
  std::unique_ptr<sim::HerdingRun> herding;
  // Refuses herding sites that do not fit the session's kernels (sim::HerdingRun::check).
  void check_herding(const launch::Session& session) const;
  // doc["herding"]: the hooks' statistics, when the run herds.
  void add_herding_stats(nlohmann::json& doc) const;
};
// Herding applied once: `machine` for a timed run (nullptr: functional).
PreparedRun prepare_run(const RunArgs& args, bool capture_printf,
                        const config::MachineConfig* machine = nullptr);
// --rtl / --rtl-check as a unit selection (none when neither is given).
sim::UnitSelection rtl_selection(const std::string& rtl, bool rtl_check);
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
// The demo's fourth table: branch and data herding on three kernels (sc_main/demo_herding.cpp). Returns false
// when a run failed.
bool print_herding_table(const std::filesystem::path& workloads, const std::filesystem::path& config);
// The demo's fifth table: Robust SIMD and DWS against fixed organizations on three kernels, on the machine
// file `config` (sc_main/demo_robust.cpp; skipped when it does not exist). Returns false when a run failed.
bool print_robust_table(const std::filesystem::path& workloads, const std::filesystem::path& config);

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
  bool herding_mode = false;  // --herding: exact against herded instead of the compaction mechanisms
  sim::HerdingCli herding;
};
// `simtlm compare --herding` (sc_main/herding_compare_command.cpp).
int herding_compare_command(const CompareArgs& args);
// `simtlm compare` (sc_main/compare_command.cpp).
int compare_command(const CompareArgs& args);

// `simtlm check`: args.launch, and with --config/--set/--mode (as run) the machine-dependent refusals too.
int check_command(const RunArgs& args);

// Validates a machine configuration against the schema (models/config); throws ConfigError.
void check_machine_config(const std::filesystem::path& path);

// `simtlm config`: validates a file and prints its parameters, or prints the parameter reference.
int config_command(const std::filesystem::path& path, bool markdown);

}  // namespace simtlm::cli
