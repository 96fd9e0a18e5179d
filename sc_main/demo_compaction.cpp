// The compaction table of `simtlm demo`: three kernels under no compaction, TBC, TBC with lane permutations
// and ideal compaction (the full study is scripts/study-slp, docs/validation/slp.md).
#include <fmt/format.h>

#include "hw/compaction_study.hpp"
#include "models/launch/launch.hpp"
#include "sc_main/commands.hpp"

namespace simtlm::cli {

namespace fs = std::filesystem;

bool print_compaction_table(const fs::path& workloads) {
  static const char* kKernels[] = {"bitonic", "reduction", "backprop"};
  static const char* kMechanisms[] = {"no_tbc",      "tbc+identity", "tbc+odd_even",
                                      "tbc+rev_wid", "tbc+balanced", "ideal"};
  const std::vector<hw::NamedPermutation> permutations = {
      hw::NamedPermutation::kIdentity, hw::NamedPermutation::kOddEven, hw::NamedPermutation::kRevWid,
      hw::NamedPermutation::kBalanced};
  fmt::print(
      "\nThread block compaction with SIMD lane permutation (SIMD utilization; P-branch paths compacted):\n");
  std::string header = fmt::format("{:<10}", "kernel");
  for (const char* m : kMechanisms) header += fmt::format("  {:>16}", m);
  fmt::print("{}\n{}\n", header, std::string(header.size(), '-'));
  bool ok = true;
  for (const char* name : kKernels) {
    const fs::path file = workloads / name / (std::string(name) + ".yaml");
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) continue;
    try {
      const launch::Session session(launch::load_launch(file), session_options(0, true));
      const auto image = session.prepare_device();
      const hw::CompactionStudy s = hw::run_compaction_study(session, *image, permutations);
      std::string row = fmt::format("{:<10}", name);
      for (const char* m : kMechanisms) {
        const size_t i = static_cast<size_t>(std::find(s.mechanisms.begin(), s.mechanisms.end(), m) -
                                             s.mechanisms.begin());
        const hw::MechanismCounts& p = s.p_branches[i];
        row += fmt::format(
            "  {:>16}", fmt::format("{:.1f}%; {}/{}", 100.0 * s.simd_utilization(i), p.compacted, p.paths));
      }
      fmt::print("{}\n", row);
    } catch (const std::exception& e) {
      ok = false;
      fmt::print("{:<10}  ERROR: {}\n", name, e.what());
    }
  }
  fmt::print(
      "Full study: scripts/study-slp (docs/validation/slp.md); one kernel: simtlm compare --launch FILE\n");
  return ok;
}

}  // namespace simtlm::cli
