// `simtlm compare`: one kernel under every compaction mechanism and lane permutation, as one table.
#include <fmt/format.h>

#include <stdexcept>

#include "hw/compaction_study.hpp"
#include "models/launch/launch.hpp"
#include "models/launch/outputs.hpp"
#include "models/launch/session.hpp"
#include "sc_main/commands.hpp"

namespace simtlm::cli {

namespace fs = std::filesystem;

namespace {

std::vector<hw::NamedPermutation> parse_permutations(const std::string& list) {
  std::vector<hw::NamedPermutation> out;
  if (list == "all") return {std::begin(hw::kAllNamedPermutations), std::end(hw::kAllNamedPermutations)};
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = std::min(list.find(',', start), list.size());
    const std::string name = list.substr(start, comma - start);
    const auto p = hw::parse_permutation(name);
    if (!p) {
      std::string valid;
      for (hw::NamedPermutation q : hw::kAllNamedPermutations) {
        valid.append(" ");  // append, not operator+: GCC 12 warns falsely on that (-Wrestrict)
        valid.append(hw::permutation_name(q));
      }
      throw std::runtime_error("--permutations: unknown permutation '" + name + "'; valid: all," + valid);
    }
    out.push_back(*p);
    start = comma + 1;
  }
  return out;
}

std::string rate(const hw::MechanismCounts& c) {
  return c.paths ? fmt::format("{:.1f}%", 100.0 * double(c.compacted) / double(c.paths)) : "-";
}

}  // namespace

int compare_command(const CompareArgs& args) {
  const std::vector<hw::NamedPermutation> permutations = parse_permutations(args.permutations);
  launch::Session session(launch::load_launch(args.launch), session_options(args.budget, true));
  launch::SessionResult functional;
  try {
    functional = session.run();
  } catch (const ptx::KernelError& e) {
    throw std::runtime_error(fmt::format("{}: {}", args.launch.string(), e.what()));
  }
  const std::unique_ptr<launch::DeviceImage> image = session.prepare_device();
  hw::CompactionStudy study;
  try {
    study = hw::run_compaction_study(session, *image, permutations, args.seed);
  } catch (const ptx::KernelError& e) {
    throw std::runtime_error(fmt::format("{}: {}", args.launch.string(), e.what()));
  }
  const bool same = study.buffers == functional.buffers;
  nlohmann::json doc = study.json();
  doc["kernel"] = session.kernel().name;
  doc["launch"] = args.launch.filename().string();
  doc["seed"] = args.seed;
  doc["outputs_equal_functional"] = same;
  const fs::path dir =
      args.out.empty() ? fs::path("out") / (args.launch.stem().string() + "-compare") : args.out;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    throw std::runtime_error(fmt::format("{}: cannot create the directory: {}", dir.string(), ec.message()));
  const std::string text = doc.dump(2) + "\n";
  launch::write_file_atomic(dir / "compare.json", std::vector<uint8_t>(text.begin(), text.end()));

  fmt::print("{}: kernel {}, CTA-wide compaction (SIMD width {}; docs/slp.md)\n", args.launch.string(),
             session.kernel().name, study.width);
  const std::string header = fmt::format("{:<18}  {:>12}  {:>9}  {:>18}  {:>18}", "mechanism", "warp instr",
                                         "SIMD util", "P-branch compacted", "D-branch compacted");
  fmt::print("{}\n{}\n", header, std::string(header.size(), '-'));
  for (size_t m = 0; m < study.mechanisms.size(); ++m) {
    const hw::MechanismCounts& p = study.p_branches[m];
    const hw::MechanismCounts& d = study.d_branches[m];
    fmt::print("{:<18}  {:>12}  {:>8.2f}%  {:>18}  {:>18}\n", study.mechanisms[m], study.warp_instructions[m],
               100.0 * study.simd_utilization(m), fmt::format("{} ({} of {})", rate(p), p.compacted, p.paths),
               fmt::format("{} ({} of {})", rate(d), d.compacted, d.paths));
  }
  fmt::print("outputs equal to the functional run: {}; details in {}\n", same ? "yes" : "NO",
             (dir / "compare.json").string());
  return same ? 0 : 1;
}

}  // namespace simtlm::cli
