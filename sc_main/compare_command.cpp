// `simtlm compare`: one kernel under every compaction mechanism and lane permutation, as one table.
#include <fmt/format.h>

#include <map>
#include <stdexcept>

#include "hw/compaction_study.hpp"
#include "hw/sc/timing_child.hpp"
#include "hw/units/select/unit_set.hpp"
#include "models/config/machine_config.hpp"
#include "models/launch/launch.hpp"
#include "models/launch/output_dir.hpp"
#include "models/launch/outputs.hpp"
#include "models/launch/session.hpp"
#include "models/launch/sha256.hpp"
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
  const fs::path dir =
      args.out.empty() ? fs::path("out") / (args.launch.stem().string() + "-compare") : args.out;
  launch::OutputSet outputs(dir);
  launch::SessionResult functional;
  try {
    functional = session.run();
  } catch (const ptx::KernelError& e) {
    throw std::runtime_error(fmt::format("{}: {}", args.launch.string(), e.what()));
  }
  const std::unique_ptr<launch::DeviceImage> image = session.prepare_device();
  // --rtl: one set of units per permutation, its permutation table loaded with that permutation.
  std::vector<hw::UnitSet> unit_sets;
  hw::StudyUnits units;
  if (!args.rtl.empty() || args.rtl_check) {
    hw::UnitSelection selection;
    try {
      selection = hw::parse_rtl_units(args.rtl.empty() ? "permutation,compactor" : args.rtl, args.rtl_check);
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(std::string("--rtl: ") + e.what());
    }
    if (selection.rtl_majority || selection.rtl_popular_block) {
      throw std::runtime_error("--rtl: compare uses only the permutation and compactor units");
    }
    const uint32_t warps = static_cast<uint32_t>((session.launch().block.count() + 31) / 32);
    hw::UnitOptions unit_options;
    if (selection.rtl_compactor && warps > unit_options.compactor_max_warps) {
      throw std::runtime_error(
          fmt::format("--rtl compactor: the RTL compactor holds {} warps, a CTA of {} has {}",
                      unit_options.compactor_max_warps, args.launch.string(), warps));
    }
    unit_options.compactor_max_warps = std::max(unit_options.compactor_max_warps, warps);
    for (hw::NamedPermutation p : permutations) {
      unit_sets.push_back(hw::make_unit_set(selection, 32, unit_options, nullptr));
      hw::UnitSet& set = unit_sets.back();
      if (selection.rtl_permutation) {
        const hw::LanePermutationMap map(p, 32, args.seed);
        if (!map.is_xor()) {
          throw std::runtime_error(
              fmt::format("--rtl permutation: {} is not an XOR permutation; the permutation "
                          "unit cannot hold it (give --permutations without it)",
                          hw::permutation_name(p)));
        }
        for (uint32_t w = 0; w < unit_options.permutation_warp_ids; ++w)
          set.permutation->load(w, map.xor_mask(w));
        set.permutation->set_mode(hw::PermutationMode::kTable);
        units.permutation.push_back(set.permutation.get());
      } else {
        units.permutation.push_back(nullptr);
      }
      units.compactor.push_back(selection.rtl_compactor ? set.compactor.get() : nullptr);
    }
  }
  hw::CompactionStudy study;
  try {
    study = hw::run_compaction_study(session, *image, permutations, args.seed,
                                     unit_sets.empty() ? nullptr : &units, args.paths);
  } catch (const ptx::KernelError& e) {
    throw std::runtime_error(fmt::format("{}: {}", args.launch.string(), e.what()));
  } catch (const hw::RtlMismatch& e) {
    throw std::runtime_error(fmt::format("{}: {}", args.launch.string(), e.what()));
  }
  bool same = study.buffers == functional.buffers;
  nlohmann::json doc = study.json();
  // --config: each mechanism also on the SystemC model (one child process per run).
  nlohmann::json timing = nlohmann::json::object();
  if (!args.config.empty()) {
    hw::TimingOptions timing_options;
    if (!args.rtl.empty() || args.rtl_check) {
      timing_options.units =
          hw::parse_rtl_units(args.rtl.empty() ? "permutation,compactor" : args.rtl, args.rtl_check);
    }
    std::map<std::string, std::string> functional_sha;
    for (const auto& [name, bytes] : functional.buffers) functional_sha[name] = launch::sha256_hex(bytes);
    // CAPRI is a timing mechanism only (its decisions depend on time): timed under each permutation.
    std::vector<std::string> timed = study.mechanisms;
    for (hw::NamedPermutation p : permutations)
      timed.push_back("capri+" + std::string(hw::permutation_name(p)));
    for (const std::string& m : timed) {
      config::MachineConfig machine = config::MachineConfig::load(args.config);
      const size_t plus = m.find('+');
      if (m == "no_tbc" || m == "ideal") {
        machine.set("compaction.mechanism", m == "ideal" ? "ideal" : "none", "compare");
      } else {
        machine.set("compaction.mechanism", m.substr(0, plus), "compare");
        machine.set("compaction.permutation", m.substr(plus + 1), "compare");
      }
      machine.set("compaction.seed", std::to_string(args.seed), "compare");
      hw::TimingOptions options = timing_options;
      if (m == "no_tbc" || m == "ideal" ||
          !hw::LanePermutationMap(*hw::parse_permutation(m.substr(plus + 1)), 32).is_xor()) {
        options.units.rtl_permutation = false;  // no table to hold: the C++ mapping
      }
      options.units.check = options.units.check && options.units.any_rtl();
      const nlohmann::json t =
          hw::run_timing_in_child(session.launch(), session_options(args.budget, true), machine, options);
      if (t.contains("error"))
        throw std::runtime_error(
            fmt::format("{} ({}): {}", args.launch.string(), m, t["error"].get<std::string>()));
      for (const auto& [name, sha] : functional_sha) same = same && t["sha256"].value(name, "") == sha;
      const nlohmann::json& s = t["stats"];
      const uint64_t l1 = s["l1"].value("hits", uint64_t{0}) + s["l1"].value("misses", uint64_t{0});
      timing[m] = {{"cycles", s["cycles"]},
                   {"compaction", s["compaction"]},
                   {"ipc", s["ipc"]},
                   {"warp_instructions", s["warp_instructions"]},
                   {"simd_utilization", s["simd_utilization"]},
                   {"l1_misses", s["l1"].value("misses", uint64_t{0})},
                   {"l1_miss_rate", l1 ? double(s["l1"].value("misses", uint64_t{0})) / double(l1) : 0.0},
                   {"stalls", s["stalls"]}};
    }
    doc["timing"] = timing;
    doc["config"] = args.config.filename().string();
  }
  doc["kernel"] = session.kernel().name;
  doc["launch"] = args.launch.filename().string();
  doc["seed"] = args.seed;
  doc["outputs_equal_functional"] = same;
  doc["rtl"] = args.rtl;
  doc["rtl_check"] = args.rtl_check;
  const std::string text = doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::string lines;
  if (args.paths) {
    for (const hw::PathRecord& r : study.paths) {
      nlohmann::json warps = nlohmann::json::object();
      for (size_t m = 0; m < study.mechanisms.size(); ++m) warps[study.mechanisms[m]] = r.warps[m];
      lines += nlohmann::json{
          {"pc", r.pc},
          {"cta", r.cta},
          {"side", r.taken ? "taken" : "not_taken"},
          {"kind", study.branches.at(r.pc).data_dependent ? "D" : "P"},
          {"active_threads", r.active_threads},
          {"warps",
           warps}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      lines += "\n";
    }
  }
  outputs.write_and_commit([&](const fs::path& staging) {
    launch::write_file_checked(staging / "compare.json", std::vector<uint8_t>(text.begin(), text.end()));
    if (args.paths)
      launch::write_file_checked(staging / "paths.jsonl", std::vector<uint8_t>(lines.begin(), lines.end()));
  });

  fmt::print("{}: kernel {}, CTA-wide compaction (SIMD width {}; docs/slp.md)\n", args.launch.string(),
             session.kernel().name, study.width);
  std::string header = fmt::format("{:<18}  {:>12}  {:>9}  {:>18}  {:>18}", "mechanism", "warp instr",
                                   "SIMD util", "P-branch compacted", "D-branch compacted");
  if (!timing.empty())
    header += fmt::format("  {:>10}  {:>6}  {:>8}  {:>8}", "cycles", "IPC", "speedup", "L1 miss");
  fmt::print("{}\n{}\n", header, std::string(header.size(), '-'));
  for (size_t m = 0; m < study.mechanisms.size(); ++m) {
    const hw::MechanismCounts& p = study.p_branches[m];
    const hw::MechanismCounts& d = study.d_branches[m];
    std::string row = fmt::format("{:<18}  {:>12}  {:>8.2f}%  {:>18}  {:>18}", study.mechanisms[m],
                                  study.warp_instructions[m], 100.0 * study.simd_utilization(m),
                                  fmt::format("{} ({} of {})", rate(p), p.compacted, p.paths),
                                  fmt::format("{} ({} of {})", rate(d), d.compacted, d.paths));
    if (!timing.empty()) {
      const nlohmann::json& t = timing[study.mechanisms[m]];
      row += fmt::format("  {:>10}  {:>6.3f}  {:>7.3f}x  {:>7.2f}%", t["cycles"].get<uint64_t>(),
                         t["ipc"].get<double>(),
                         timing["no_tbc"]["cycles"].get<double>() / t["cycles"].get<double>(),
                         100.0 * t["l1_miss_rate"].get<double>());
    }
    fmt::print("{}\n", row);
  }
  if (!timing.empty()) {
    for (hw::NamedPermutation p : permutations) {
      const std::string m = "capri+" + std::string(hw::permutation_name(p));
      const nlohmann::json& t = timing[m];
      fmt::print("{:<18}  {:>12}  {:>8.2f}%  {:>18}  {:>18}  {:>10}  {:>6.3f}  {:>7.3f}x  {:>7.2f}%\n", m,
                 t["warp_instructions"].get<uint64_t>(), 100.0 * t["simd_utilization"].get<double>(),
                 "(timing only)", "", t["cycles"].get<uint64_t>(), t["ipc"].get<double>(),
                 timing["no_tbc"]["cycles"].get<double>() / t["cycles"].get<double>(),
                 100.0 * t["l1_miss_rate"].get<double>());
    }
  }
  fmt::print("outputs equal to the functional run: {}; details in {}\n", same ? "yes" : "NO",
             (dir / "compare.json").string());
  return same ? 0 : 1;
}

}  // namespace simtlm::cli
