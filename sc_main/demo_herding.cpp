// The herding table of `simtlm demo`: three kernels with hardware branch herding (0 and 1 cycle of decision),
// and data herding of their largest buffer, each against the exact run on the timing model: speed-up and the
// fraction of mismatching output bytes (the full study is scripts/study-herding, docs/validation/herding.md).
#include <fmt/format.h>

#include "sc_main/commands.hpp"
#include "studies/demo_rows.hpp"

namespace simtlm::cli {

namespace fs = std::filesystem;

bool print_herding_table(const fs::path& workloads, const fs::path& config) {
  static const char* kKernels[] = {"mandelbrot", "julia", "sobel"};
  std::error_code config_ec;
  if (!fs::is_regular_file(config, config_ec)) return true;
  const std::vector<std::string> mechanisms = studies::herding_demo_mechanisms();
  fmt::print(
      "\nBranch and data herding on the timing model ({}): speed-up over the exact run; output bytes that "
      "differ\n",
      config.string());
  std::string header = fmt::format("{:<11}", "kernel");
  for (const std::string& m : mechanisms) header += fmt::format("  {:>24}", m);
  fmt::print("{}\n{}\n", header, std::string(header.size(), '-'));
  bool ok = true;
  for (const char* name : kKernels) {
    const fs::path file = workloads / name / (std::string(name) + ".yaml");
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) continue;
    std::string row = fmt::format("{:<11}", name);
    for (const studies::HerdingDemoCell& cell : studies::herding_demo_row(file, config)) {
      if (!cell.error.empty()) {
        ok = false;
        row += fmt::format("  {:>24}", "ERROR");
        fmt::print(stderr, "demo: {} ({}): {}\n", name, cell.mechanism, cell.error);
        continue;
      }
      row +=
          fmt::format("  {:>24}", fmt::format("{:.3f}x; {:.2f}% differ", cell.speedup, cell.differ_percent));
    }
    fmt::print("{}\n", row);
  }
  fmt::print(
      "Full study: scripts/study-herding (docs/validation/herding.md); one kernel: simtlm compare --herding "
      "--launch FILE --herd-branches all --config CONFIG\n");
  return ok;
}

}  // namespace simtlm::cli
