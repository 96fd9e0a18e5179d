#include "studies/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "hw/units/select/unit_set.hpp"
#include "models/config/machine_config.hpp"
#include "models/launch/sha256.hpp"
#include "sim/timing_child.hpp"

namespace simtlm::studies {

namespace {

constexpr const char* kDefaultRtlUnits = "permutation,compactor";

// The process boundary: what compare reads of a timed run's child document ({"error"} or {"stats",
// "sha256"}).
struct ChildRun {
  std::string error;
  std::map<std::string, std::string> sha256;  // buffer name -> SHA-256 of its final contents
  TimedMechanism figures;
};

ChildRun read_child_document(const sim::ChildResult& t) {
  ChildRun run;
  if (!t.ok()) {
    run.error = t.error;
    return run;
  }
  run.sha256 = t.sha256;
  const nlohmann::json& s = t.stats_json;
  TimedMechanism& f = run.figures;
  f.cycles = s["cycles"].get<uint64_t>();
  f.ipc = s["ipc"].get<double>();
  f.warp_instructions = s["warp_instructions"].get<uint64_t>();
  f.simd_utilization = s["simd_utilization"].get<double>();
  f.l1_misses = s["l1"].value("misses", uint64_t{0});
  const uint64_t l1 = s["l1"].value("hits", uint64_t{0}) + f.l1_misses;
  f.l1_miss_rate = l1 ? double(f.l1_misses) / double(l1) : 0.0;
  f.compaction = s["compaction"];
  f.stalls = s["stalls"];
  return run;
}

hw::UnitSelection rtl_selection(const CompareRequest& request) {
  return hw::parse_rtl_units(request.rtl.empty() ? kDefaultRtlUnits : request.rtl, request.rtl_check);
}

bool any_rtl(const CompareRequest& request) {
  return !request.rtl.empty() || request.rtl_check;
}

// --rtl: one set of units per permutation, its permutation table loaded with that permutation.
void make_study_units(const launch::Session& session, const CompareRequest& request,
                      std::vector<hw::UnitSet>& unit_sets, studies::StudyUnits& units) {
  hw::UnitSelection selection;
  try {
    selection = rtl_selection(request);
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
                    unit_options.compactor_max_warps, request.launch.string(), warps));
  }
  unit_options.compactor_max_warps = std::max(unit_options.compactor_max_warps, warps);
  for (hw::NamedPermutation p : request.permutations) {
    unit_sets.push_back(hw::make_unit_set(selection, 32, unit_options, nullptr));
    hw::UnitSet& set = unit_sets.back();
    if (selection.rtl_permutation) {
      const hw::LanePermutationMap map(p, 32, request.seed);
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

// The machine of one timed mechanism: the configuration with its compaction keys set.
config::MachineConfig timed_machine(const CompareRequest& request, const studies::StudyMechanism& m) {
  config::MachineConfig machine = config::MachineConfig::load(request.config);
  machine.set("divergence.unit", std::string(hw::traits(hw::unit_of(m.compaction)).name), "compare");
  if (hw::traits(hw::unit_of(m.compaction)).permutes_lanes)
    machine.set("compaction.permutation", std::string(hw::permutation_name(m.permutation)), "compare");
  machine.set("compaction.seed", std::to_string(request.seed), "compare");
  return machine;
}

// Times every mechanism, one child process per run; clears `same` when a run's buffers differ from
// `functional`.
std::vector<TimedMechanism> time_mechanisms(const launch::Session& session, const CompareRequest& request,
                                            const launch::SessionResult& functional, bool& same) {
  sim::TimingOptions timing_options;
  if (any_rtl(request)) timing_options.units = rtl_selection(request);
  std::map<std::string, std::string> functional_sha;
  for (const auto& [name, bytes] : functional.buffers) functional_sha[name] = launch::sha256_hex(bytes);
  // CAPRI is a timing mechanism only (its decisions depend on time): timed under each permutation.
  std::vector<studies::StudyMechanism> timed = studies::study_mechanisms(request.permutations);
  for (hw::NamedPermutation p : request.permutations) timed.push_back({hw::Compaction::capri, p});
  std::vector<TimedMechanism> out;
  for (const studies::StudyMechanism& m : timed) {
    const config::MachineConfig machine = timed_machine(request, m);
    sim::TimingOptions options = timing_options;
    const bool permuted = hw::traits(hw::unit_of(m.compaction)).permutes_lanes;
    if (!permuted || !hw::is_xor_permutation(m.permutation)) {
      options.units.rtl_permutation = false;  // no table to hold: the C++ mapping
    }
    options.units.check = options.units.check && options.units.any_rtl();
    const ChildRun run = read_child_document(
        sim::run_timing_child(session.launch(), request.session_options, machine, options));
    if (!run.error.empty())
      throw std::runtime_error(fmt::format("{} ({}): {}", request.launch.string(), m.label(), run.error));
    for (const auto& [name, sha] : functional_sha) {
      const auto it = run.sha256.find(name);
      same = same && it != run.sha256.end() && it->second == sha;
    }
    out.push_back(run.figures);
    out.back().mechanism = m;
  }
  return out;
}

}  // namespace

const TimedMechanism& CompareResult::timed_run(const std::string& label) const {
  for (const TimedMechanism& t : timed) {
    if (t.mechanism.label() == label) return t;
  }
  throw std::out_of_range("compare: no timed run of " + label);
}

std::vector<hw::NamedPermutation> parse_permutation_list(const std::string& list) {
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

CompareResult compare(launch::Session& session, const CompareRequest& request) {
  launch::SessionResult functional;
  try {
    functional = session.run();
  } catch (const ptx::KernelError& e) {
    throw std::runtime_error(fmt::format("{}: {}", request.launch.string(), e.what()));
  }
  const std::unique_ptr<launch::DeviceImage> image = session.prepare_device();
  std::vector<hw::UnitSet> unit_sets;
  studies::StudyUnits units;
  if (any_rtl(request)) make_study_units(session, request, unit_sets, units);
  CompareResult result;
  try {
    result.study = studies::run_compaction_study(session, *image, request.permutations, request.seed,
                                                 unit_sets.empty() ? nullptr : &units, request.log_paths);
  } catch (const ptx::KernelError& e) {
    throw std::runtime_error(fmt::format("{}: {}", request.launch.string(), e.what()));
  } catch (const hw::RtlMismatch& e) {
    throw std::runtime_error(fmt::format("{}: {}", request.launch.string(), e.what()));
  }
  bool same = result.study.buffers == functional.buffers;
  if (!request.config.empty()) result.timed = time_mechanisms(session, request, functional, same);
  result.outputs_equal_functional = same;
  return result;
}

nlohmann::json compare_document(const CompareResult& result, const CompareRequest& request,
                                const std::string& kernel) {
  nlohmann::json doc = result.study.json();
  if (!request.config.empty()) {
    nlohmann::json timing = nlohmann::json::object();
    for (const TimedMechanism& t : result.timed) {
      timing[t.mechanism.label()] = {{"cycles", t.cycles},
                                     {"compaction", t.compaction},
                                     {"ipc", t.ipc},
                                     {"warp_instructions", t.warp_instructions},
                                     {"simd_utilization", t.simd_utilization},
                                     {"l1_misses", t.l1_misses},
                                     {"l1_miss_rate", t.l1_miss_rate},
                                     {"stalls", t.stalls}};
    }
    doc["timing"] = timing;
    doc["config"] = request.config.filename().string();
  }
  doc["kernel"] = kernel;
  doc["launch"] = request.launch.filename().string();
  doc["seed"] = request.seed;
  doc["outputs_equal_functional"] = result.outputs_equal_functional;
  doc["rtl"] = request.rtl;
  doc["rtl_check"] = request.rtl_check;
  return doc;
}

std::string paths_lines(const CompareResult& result) {
  const studies::CompactionStudy& study = result.study;
  std::string lines;
  for (const studies::PathRecord& r : study.paths) {
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
  return lines;
}

}  // namespace simtlm::studies
