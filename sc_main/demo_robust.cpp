// The Robust SIMD table of `simtlm demo`: three kernels on the paper's four-WPU machine, the best of a few
// fixed organizations against Robust SIMD from one 32-wide warp and DWS from two 16-wide warps, as cycles and
// speed-up over 1x1 (the full study is scripts/study-robust-simd, docs/validation/robust-simd.md).
#include <fmt/format.h>

#include "models/config/machine_config.hpp"
#include "models/launch/launch.hpp"
#include "sc_main/commands.hpp"
#include "sim/timing_child.hpp"

namespace simtlm::cli {

namespace fs = std::filesystem;

namespace {

struct Organization {
  const char* policy;
  int width;
  int depth;
  std::string label() const { return fmt::format("{}x{}", width, depth); }
};

struct Run {
  uint64_t cycles = 0;  // 0: the run failed
  double adaptation_share = 0;
};

Run run_organization(const launch::Launch& l, const fs::path& config, const Organization& o,
                     const std::string& kernel) {
  config::MachineConfig machine = config::MachineConfig::load(config);
  machine.set("wpu.policy", o.policy, "demo");
  machine.set("wpu.width", std::to_string(o.width), "demo");
  machine.set("wpu.depth", std::to_string(o.depth), "demo");
  const sim::ChildResult t = sim::run_timing_child(l, session_options(0, true), machine);
  if (!t.passed()) {
    fmt::print(stderr, "demo: {} ({} {}): {}\n", kernel, o.policy, o.label(), t.problem());
    return {};
  }
  const stats::Group s = t.stats();
  return {s.integer("cycles"), s.group("wpu").real("adaptation_share")};
}

std::string cell(const Run& r, uint64_t baseline, const std::string& note = "") {
  if (r.cycles == 0 || baseline == 0) return "ERROR";
  std::string text = fmt::format("{} ({:.2f}x)", r.cycles, double(baseline) / double(r.cycles));
  if (!note.empty()) text.append(" ").append(note);
  return text;
}

}  // namespace

bool print_robust_table(const fs::path& workloads, const fs::path& config) {
  static const char* kKernels[] = {"edge_filter", "hotspot", "short_path"};
  static const Organization kBaseline{"static", 1, 1};
  static const Organization kStatic[] = {{"static", 8, 4}, {"static", 32, 1}, {"static", 16, 2}};
  static const Organization kRobust{"robust", 32, 1};
  static const Organization kDws{"dws", 16, 2};
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
      const launch::Launch l = launch::load_launch(file);
      const Run baseline = run_organization(l, config, kBaseline, name);
      Run best;
      std::string best_label;
      for (const Organization& o : kStatic) {
        const Run r = run_organization(l, config, o, name);
        ok = ok && r.cycles != 0;
        if (r.cycles != 0 && (best.cycles == 0 || r.cycles < best.cycles)) {
          best = r;
          best_label = o.label();
        }
      }
      const Run robust = run_organization(l, config, kRobust, name);
      const Run dws = run_organization(l, config, kDws, name);
      ok = ok && baseline.cycles != 0 && robust.cycles != 0 && dws.cycles != 0;
      fmt::print("{:<11}  {:>9}  {:>28}  {:>30}  {:>20}\n", name,
                 baseline.cycles ? std::to_string(baseline.cycles) : "ERROR",
                 cell(best, baseline.cycles, best_label),
                 cell(robust, baseline.cycles, fmt::format("{:.0f}%", 100.0 * robust.adaptation_share)),
                 cell(dws, baseline.cycles));
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
