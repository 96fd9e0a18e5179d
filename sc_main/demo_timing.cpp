// The timing half of `simtlm demo`: each workload on the SystemC model, in a child process per run.
#include <fmt/format.h>

#include <chrono>

#include "models/launch/launch.hpp"
#include "sc_main/commands.hpp"
#include "studies/demo_rows.hpp"

namespace simtlm::cli {

namespace fs = std::filesystem;

bool print_timing_table(const std::vector<DemoTimingInput>& inputs, const fs::path& config_path) {
  std::error_code ec;
  if (!fs::is_regular_file(config_path, ec)) {
    fmt::print("\n(no timing table: {} not found; give --config)\n", config_path.string());
    return true;
  }
  const config::MachineConfig machine = config::MachineConfig::load(config_path);
  fmt::print("\nTiming model on {} (docs/timing-model.md):\n", config_path.string());
  const std::string header =
      fmt::format("{:<20}  {:>10}  {:>6}  {:>9}  {:>9}  {:>9}  {:>9}  {}", "workload", "cycles", "IPC",
                  "SIMD util", "L1 hits", "DRAM row", "mem stall", "= functional");
  fmt::print("{}\n{}\n", header, std::string(header.size(), '-'));
  bool ok = true;
  const auto start = std::chrono::steady_clock::now();
  auto pct = [](uint64_t a, uint64_t b) {
    return b ? fmt::format("{:.1f}%", 100.0 * double(a) / double(b)) : "-";
  };
  for (const DemoTimingInput& in : inputs) {
    const studies::TimingDemoRow r =
        studies::timing_demo_row(in.launch, machine, session_options(0, true), in.functional_sha256);
    if (!r.error.empty()) {
      ok = false;
      fmt::print("{:<20}  ERROR: {}\n", in.workload, r.error);
      continue;
    }
    ok = ok && r.same_as_functional;
    fmt::print("{:<20}  {:>10}  {:>6.2f}  {:>9}  {:>9}  {:>9}  {:>9}  {}\n", in.workload, r.cycles, r.ipc,
               fmt::format("{:.1f}%", 100.0 * r.simd_utilization), pct(r.l1_hits, r.l1_accesses),
               pct(r.dram_row_hits, r.dram_rows), pct(r.memory_stalls, r.stalls),
               r.same_as_functional ? "yes" : "NO");
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print(
      "\n{} workloads timed in {:.1f} s. Columns: L1 hits over L1 accesses, DRAM row-buffer hits, memory\n"
      "stalls over all stall cycles; = functional: outputs identical to the functional run.\n",
      inputs.size(), seconds);
  return ok;
}

}  // namespace simtlm::cli
