// `simtlm compare`: one kernel under every compaction mechanism and lane permutation, as one table.
#include <fmt/format.h>

#include <stdexcept>

#include "models/launch/launch.hpp"
#include "models/launch/output_dir.hpp"
#include "models/launch/outputs.hpp"
#include "models/launch/session.hpp"
#include "sc_main/commands.hpp"
#include "studies/compare.hpp"

namespace simtlm::cli {

namespace fs = std::filesystem;

namespace {

std::string rate(const studies::MechanismCounts& c) {
  return c.paths ? fmt::format("{:.1f}%", 100.0 * double(c.compacted) / double(c.paths)) : "-";
}

}  // namespace

int compare_command(const CompareArgs& args) {
  if (args.herding_mode || args.herding.given()) return herding_compare_command(args);
  studies::CompareRequest request;
  request.launch = args.launch;
  request.permutations = studies::parse_permutation_list(args.permutations);
  request.seed = args.seed;
  request.session_options = session_options(args.budget, true);
  request.config = args.config;
  request.log_paths = args.paths;
  request.rtl = args.rtl;
  request.rtl_check = args.rtl_check;
  launch::Session session(launch::load_launch(args.launch, args.launch_sets), request.session_options);
  const fs::path dir =
      args.out.empty() ? fs::path("out") / (args.launch.stem().string() + "-compare") : args.out;
  launch::OutputSet outputs(dir);
  const studies::CompareResult result = studies::compare(session, request);
  const studies::CompactionStudy& study = result.study;
  const bool same = result.outputs_equal_functional;
  const nlohmann::json doc = studies::compare_document(result, request, session.kernel().name);
  const std::string text = doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  const std::string lines = args.paths ? studies::paths_lines(result) : std::string();
  outputs.write_and_commit([&](const fs::path& staging) {
    launch::write_file_checked(staging / "compare.json", std::vector<uint8_t>(text.begin(), text.end()));
    if (args.paths)
      launch::write_file_checked(staging / "paths.jsonl", std::vector<uint8_t>(lines.begin(), lines.end()));
  });

  if (args.quiet) return same ? 0 : 1;
  fmt::print("{}: kernel {}, CTA-wide compaction (SIMD width {}; docs/slp.md)\n", args.launch.string(),
             session.kernel().name, study.width);
  std::string header = fmt::format("{:<18}  {:>12}  {:>9}  {:>18}  {:>18}", "mechanism", "warp instr",
                                   "SIMD util", "P-branch compacted", "D-branch compacted");
  const bool timed = !result.timed.empty();
  if (timed) header += fmt::format("  {:>10}  {:>6}  {:>8}  {:>8}", "cycles", "IPC", "speedup", "L1 miss");
  fmt::print("{}\n{}\n", header, std::string(header.size(), '-'));
  for (size_t m = 0; m < study.mechanisms.size(); ++m) {
    const studies::MechanismCounts& p = study.p_branches[m];
    const studies::MechanismCounts& d = study.d_branches[m];
    std::string row = fmt::format("{:<18}  {:>12}  {:>8.2f}%  {:>18}  {:>18}", study.mechanisms[m],
                                  study.warp_instructions[m], 100.0 * study.simd_utilization(m),
                                  fmt::format("{} ({} of {})", rate(p), p.compacted, p.paths),
                                  fmt::format("{} ({} of {})", rate(d), d.compacted, d.paths));
    if (timed) {
      const studies::TimedMechanism& t = result.timed_run(study.mechanisms[m]);
      row +=
          fmt::format("  {:>10}  {:>6.3f}  {:>7.3f}x  {:>7.2f}%", t.cycles, t.ipc,
                      double(result.timed_run("no_tbc").cycles) / double(t.cycles), 100.0 * t.l1_miss_rate);
    }
    fmt::print("{}\n", row);
  }
  for (const studies::TimedMechanism& t : result.timed) {
    if (t.mechanism.compaction != studies::Compaction::capri) continue;
    fmt::print("{:<18}  {:>12}  {:>8.2f}%  {:>18}  {:>18}  {:>10}  {:>6.3f}  {:>7.3f}x  {:>7.2f}%\n",
               t.mechanism.label(), t.warp_instructions, 100.0 * t.simd_utilization, "(timing only)", "",
               t.cycles, t.ipc, double(result.timed_run("no_tbc").cycles) / double(t.cycles),
               100.0 * t.l1_miss_rate);
  }
  fmt::print("outputs equal to the functional run: {}; details in {}\n", same ? "yes" : "NO",
             (dir / "compare.json").string());
  return same ? 0 : 1;
}

}  // namespace simtlm::cli
