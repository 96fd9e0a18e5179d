// The herding table of `simtlm demo`: three kernels with hardware branch herding (0 and 1 cycle of decision),
// and data herding of their largest buffer, each against the exact run on the timing model: speed-up and the
// fraction of mismatching output bytes (the full study is scripts/study-herding, docs/validation/herding.md).
#include <fmt/format.h>

#include "sc_main/commands.hpp"
#include "studies/herding_compare.hpp"

namespace simtlm::cli {

namespace fs = std::filesystem;

namespace {

struct DemoMechanism {
  const char* name;
  sim::HerdingCli cli;
};

std::vector<DemoMechanism> demo_mechanisms() {
  std::vector<DemoMechanism> m(3);
  m[0].name = "branch herding";
  m[0].cli.off = true;
  m[0].cli.branches = "all";
  m[1].name = "branch, 1 cycle";
  m[1].cli = m[0].cli;
  m[1].cli.branch_cycles = 1;
  m[2].name = "data herding";
  m[2].cli.off = true;
  m[2].cli.buffers = "largest";
  return m;
}

}  // namespace

bool print_herding_table(const fs::path& workloads, const fs::path& config) {
  static const char* kKernels[] = {"mandelbrot", "julia", "sobel"};
  std::error_code config_ec;
  if (!fs::is_regular_file(config, config_ec)) return true;
  const std::vector<DemoMechanism> mechanisms = demo_mechanisms();
  fmt::print(
      "\nBranch and data herding on the timing model ({}): speed-up over the exact run; output bytes that "
      "differ\n",
      config.string());
  std::string header = fmt::format("{:<11}", "kernel");
  for (const DemoMechanism& m : mechanisms) header += fmt::format("  {:>24}", m.name);
  fmt::print("{}\n{}\n", header, std::string(header.size(), '-'));
  bool ok = true;
  for (const char* name : kKernels) {
    const fs::path file = workloads / name / (std::string(name) + ".yaml");
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) continue;
    std::string row = fmt::format("{:<11}", name);
    for (const DemoMechanism& m : mechanisms) {
      studies::HerdingCompareRequest request;
      request.launch = file;
      request.herding = m.cli;
      request.config = config;
      try {
        const studies::HerdingCompareResult r = studies::compare_herding(request);
        uint64_t bytes = 0, mismatched = 0;
        for (const launch::BufferQuality& q : r.quality) {
          bytes += q.bytes;
          mismatched += q.mismatched_bytes;
        }
        row += fmt::format("  {:>24}", fmt::format("{:.3f}x; {:.2f}% differ", r.speedup(),
                                                   bytes ? 100.0 * double(mismatched) / double(bytes) : 0.0));
      } catch (const std::exception& e) {
        ok = false;
        row += fmt::format("  {:>24}", "ERROR");
        fmt::print(stderr, "demo: {} ({}): {}\n", name, m.name, e.what());
      }
    }
    fmt::print("{}\n", row);
  }
  fmt::print(
      "Full study: scripts/study-herding (docs/validation/herding.md); one kernel: simtlm compare --herding "
      "--launch FILE --herd-branches all --config CONFIG\n");
  return ok;
}

}  // namespace simtlm::cli
