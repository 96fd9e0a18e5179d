// The timing half of `simtlm demo`: each workload on the SystemC model, in a child process per run.
#include <fmt/format.h>

#include <chrono>

#include "hw/sc/timing_child.hpp"
#include "models/launch/launch.hpp"
#include "sc_main/commands.hpp"

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
    nlohmann::json t;
    try {
      t = hw::run_timing_in_child(launch::load_launch(in.launch), session_options(0, true), machine);
    } catch (const std::exception& e) {
      t = {{"error", e.what()}};
    }
    if (t.contains("error")) {
      ok = false;
      fmt::print("{:<20}  ERROR: {}\n", in.workload, t["error"].get<std::string>());
      continue;
    }
    const nlohmann::json& s = t["stats"];
    bool same = t["failures"].empty();
    for (const auto& [name, sha] : in.functional_sha256) same = same && t["sha256"].value(name, "") == sha;
    ok = ok && same;
    auto pct = [](uint64_t a, uint64_t b) {
      return b ? fmt::format("{:.1f}%", 100.0 * double(a) / double(b)) : "-";
    };
    const uint64_t l1 = s["l1"].value("reads", uint64_t{0}) + s["l1"].value("writes", uint64_t{0});
    const uint64_t rows =
        s["dram"].value("row_hits", uint64_t{0}) + s["dram"].value("row_misses", uint64_t{0});
    uint64_t stalls = 0;
    for (const auto& [why, n] : s["stalls"].items()) stalls += n.get<uint64_t>();
    fmt::print("{:<20}  {:>10}  {:>6.2f}  {:>9}  {:>9}  {:>9}  {:>9}  {}\n", in.workload,
               s["cycles"].get<uint64_t>(), s["ipc"].get<double>(),
               fmt::format("{:.1f}%", 100.0 * s["simd_utilization"].get<double>()),
               pct(s["l1"].value("hits", uint64_t{0}), l1),
               pct(s["dram"].value("row_hits", uint64_t{0}), rows),
               pct(s["stalls"]["memory"].get<uint64_t>(), stalls), same ? "yes" : "NO");
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print(
      "\n{} workloads timed in {:.1f} s. Columns: L1 hits over L1 accesses, DRAM row-buffer hits, memory\n"
      "stalls over all stall cycles; = functional: outputs identical to the functional run.\n",
      inputs.size(), seconds);
  return ok;
}

}  // namespace simtlm::cli
