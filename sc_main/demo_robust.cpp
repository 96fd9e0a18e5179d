// The Robust SIMD table of `simtlm demo`: three kernels on the paper's four-WPU machine, the best of a few
// fixed organizations against Robust SIMD from one 32-wide warp and DWS from two 16-wide warps, as cycles and
// speed-up over 1x1 (the full study is scripts/study-robust-simd, docs/validation/robust-simd.md).
#include <fmt/format.h>

#include "models/config/machine_config.hpp"
#include "models/launch/launch.hpp"
#include "sc_main/commands.hpp"
#include "studies/demo_rows.hpp"

namespace simtlm::cli {

namespace fs = std::filesystem;

namespace {

std::string cell(const studies::DemoRun& r, uint64_t baseline, const std::string& note = "") {
  if (r.cycles == 0 || baseline == 0) return "ERROR";
  std::string text = fmt::format("{} ({:.2f}x)", r.cycles, double(baseline) / double(r.cycles));
  if (!note.empty()) text.append(" ").append(note);
  return text;
}

}  // namespace

bool print_robust_table(const fs::path& workloads, const fs::path& config) {
  static const char* kKernels[] = {"edge_filter", "hotspot", "short_path"};
  std::error_code config_ec;
  if (!fs::is_regular_file(config, config_ec)) return true;
  fmt::print(
      "\nRobust SIMD on the four-WPU machine ({}): cycles (speed-up over 1x1, four single-threaded cores)\n",
      config.string());
  const std::string header = fmt::format("{:<11}  {:>9}  {:>28}  {:>30}  {:>20}", "kernel", "1x1",
                                         "best static", "Robust SIMD 32x1 (adapting)", "DWS 16x2");
  fmt::print("{}\n{}\n", header, std::string(header.size(), '-'));
  bool ok = true;
  for (const char* name : kKernels) {
    const fs::path file = workloads / name / (std::string(name) + ".yaml");
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) continue;
    try {
      const studies::RobustDemoRow row =
          studies::robust_demo_row(launch::load_launch(file), config, session_options(0, true));
      for (const auto& [organization, why] : row.problems)
        fmt::print(stderr, "demo: {} ({}): {}\n", name, organization, why);
      ok = ok && row.complete();
      const uint64_t base = row.baseline.cycles;
      fmt::print("{:<11}  {:>9}  {:>28}  {:>30}  {:>20}\n", name, base ? std::to_string(base) : "ERROR",
                 cell(row.best, base, row.best_label),
                 cell(row.robust, base, fmt::format("{:.0f}%", 100.0 * row.robust.adaptation_share)),
                 cell(row.dws, base));
    } catch (const std::exception& e) {
      ok = false;
      fmt::print("{:<11}  ERROR: {}\n", name, e.what());
    }
  }
  fmt::print(
      "Best static: the fastest of 8x4, 32x1 and 16x2; the percentage is the share of cycles spent adapting. "
      "Full "
      "study: scripts/study-robust-simd (docs/validation/robust-simd.md)\n");
  return ok;
}

}  // namespace simtlm::cli
