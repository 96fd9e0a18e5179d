// The compaction table of `simtlm demo`: three kernels under no compaction, TBC, TBC with lane permutations
// and ideal compaction (the full study is scripts/study-slp, docs/validation/slp.md).
#include <fmt/format.h>

#include "models/config/machine_config.hpp"
#include "models/launch/launch.hpp"
#include "sc_main/commands.hpp"
#include "studies/compaction_study.hpp"
#include "studies/demo_rows.hpp"

namespace simtlm::cli {

namespace fs = std::filesystem;

bool print_compaction_table(const fs::path& workloads, const fs::path& config) {
  static const char* kKernels[] = {"bitonic", "reduction", "backprop"};
  using studies::Compaction;
  using studies::NamedPermutation;
  static const studies::StudyMechanism kMechanisms[] = {{Compaction::none},
                                                        {Compaction::tbc, NamedPermutation::kIdentity},
                                                        {Compaction::tbc, NamedPermutation::kOddEven},
                                                        {Compaction::tbc, NamedPermutation::kRevWid},
                                                        {Compaction::tbc, NamedPermutation::kBalanced},
                                                        {Compaction::ideal}};
  const std::vector<studies::NamedPermutation> permutations = {
      studies::NamedPermutation::kIdentity, studies::NamedPermutation::kOddEven,
      studies::NamedPermutation::kRevWid, studies::NamedPermutation::kBalanced};
  fmt::print(
      "\nThread block compaction with SIMD lane permutation (SIMD utilization; P-branch paths compacted):\n");
  std::string header = fmt::format("{:<10}", "kernel");
  for (const studies::StudyMechanism& m : kMechanisms) header += fmt::format("  {:>16}", m.label());
  fmt::print("{}\n{}\n", header, std::string(header.size(), '-'));
  bool ok = true;
  for (const char* name : kKernels) {
    const fs::path file = workloads / name / (std::string(name) + ".yaml");
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) continue;
    try {
      const launch::Session session(launch::load_launch(file), session_options(0, true));
      const auto image = session.prepare_device();
      const studies::CompactionStudy s = studies::run_compaction_study(session, *image, permutations);
      std::string row = fmt::format("{:<10}", name);
      for (const studies::StudyMechanism& m : kMechanisms) {
        const size_t i = static_cast<size_t>(std::find(s.mechanisms.begin(), s.mechanisms.end(), m.label()) -
                                             s.mechanisms.begin());
        const studies::MechanismCounts& p = s.p_branches[i];
        row += fmt::format(
            "  {:>16}", fmt::format("{:.1f}%; {}/{}", 100.0 * s.simd_utilization(i), p.compacted, p.paths));
      }
      fmt::print("{}\n", row);
    } catch (const std::exception& e) {
      ok = false;
      fmt::print("{:<10}  ERROR: {}\n", name, e.what());
    }
  }
  std::error_code config_ec;
  if (fs::is_regular_file(config, config_ec)) {
    fmt::print("\nSpeedup over no compaction on the timing model ({}):\n", config.string());
    const std::string h2 = fmt::format("{:<10}  {:>9}  {:>12}  {:>9}  {:>14}  {:>9}", "kernel", "tbc",
                                       "tbc+balanced", "capri", "capri+balanced", "ideal");
    fmt::print("{}\n{}\n", h2, std::string(h2.size(), '-'));
    for (const char* name : kKernels) {
      const fs::path file = workloads / name / (std::string(name) + ".yaml");
      std::error_code ec;
      if (!fs::is_regular_file(file, ec)) continue;
      std::vector<std::string> s;
      for (const double x :
           studies::compaction_demo_speedups(launch::load_launch(file), config, session_options(0, true))) {
        s.push_back(x > 0 ? fmt::format("{:.3f}x", x) : "-");
        ok = ok && x > 0;
      }
      fmt::print("{:<10}  {:>9}  {:>12}  {:>9}  {:>14}  {:>9}\n", name, s[0], s[1], s[2], s[3], s[4]);
    }
  }
  fmt::print(
      "Full study: scripts/study-slp (docs/validation/slp.md); one kernel: simtlm compare --launch FILE\n");
  return ok;
}

}  // namespace simtlm::cli
