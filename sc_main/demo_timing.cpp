// The timing half of `simtlm demo`: each workload on the SystemC model, in a child process per run.
#include <fmt/format.h>

#include <chrono>

#include "models/launch/launch.hpp"
#include "sc_main/commands.hpp"
#include "sim/timing_child.hpp"

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
  for (const DemoTimingInput& in : inputs) {
    sim::ChildResult t;
    try {
      t = sim::run_timing_child(launch::load_launch(in.launch), session_options(0, true), machine);
    } catch (const std::exception& e) {
      t.error = e.what();
    }
    if (!t.ok()) {
      ok = false;
      fmt::print("{:<20}  ERROR: {}\n", in.workload, t.error);
      continue;
    }
    const stats::Group s = t.stats();
    bool same = t.failures.empty();
    for (const auto& [name, sha] : in.functional_sha256) {
      const auto found = t.sha256.find(name);
      same = same && found != t.sha256.end() && found->second == sha;
    }
    ok = ok && same;
    auto pct = [](uint64_t a, uint64_t b) {
      return b ? fmt::format("{:.1f}%", 100.0 * double(a) / double(b)) : "-";
    };
    const stats::Group l1 = s.total("l1"), dram = s.total("dram");
    const uint64_t l1_accesses = l1.integer("reads") + l1.integer("writes");
    const uint64_t rows = dram.integer("row_hits") + dram.integer("row_misses");
    uint64_t stalls = 0;
    for (const stats::Value& n : s.vector("stalls")) stalls += n.integer();
    fmt::print("{:<20}  {:>10}  {:>6.2f}  {:>9}  {:>9}  {:>9}  {:>9}  {}\n", in.workload, s.integer("cycles"),
               s.real("ipc"), fmt::format("{:.1f}%", 100.0 * s.real("simd_utilization")),
               pct(l1.integer("hits"), l1_accesses), pct(dram.integer("row_hits"), rows),
               pct(s.element("stalls", "memory").integer(), stalls), same ? "yes" : "NO");
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print(
      "\n{} workloads timed in {:.1f} s. Columns: L1 hits over L1 accesses, DRAM row-buffer hits, memory\n"
      "stalls over all stall cycles; = functional: outputs identical to the functional run.\n",
      inputs.size(), seconds);
  return ok;
}

}  // namespace simtlm::cli
