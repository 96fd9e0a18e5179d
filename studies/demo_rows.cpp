#include "studies/demo_rows.hpp"

#include <fmt/format.h>

#include "models/config/machine_config.hpp"
#include "sim/timing_child.hpp"
#include "studies/compaction_study.hpp"
#include "studies/herding_compare.hpp"

namespace simtlm::studies {

namespace {

DemoRun run_organization(const launch::Launch& l, const std::filesystem::path& config,
                         const DemoOrganization& o, const launch::SessionOptions& options,
                         std::vector<std::pair<std::string, std::string>>& problems) {
  config::MachineConfig machine = config::MachineConfig::load(config);
  machine.set("wpu.policy", o.policy, "demo");
  machine.set("wpu.width", std::to_string(o.width), "demo");
  machine.set("wpu.depth", std::to_string(o.depth), "demo");
  const sim::ChildResult t = sim::run_timing_child(l, options, machine);
  if (!t.passed()) {
    problems.emplace_back(fmt::format("{} {}", o.policy, o.label()), t.problem());
    return {};
  }
  const stats::Group s = t.stats();
  return {s.integer("cycles"), s.group("wpu").real("adaptation_share")};
}

}  // namespace

std::string DemoOrganization::label() const {
  return fmt::format("{}x{}", width, depth);
}

RobustDemoRow robust_demo_row(const launch::Launch& l, const std::filesystem::path& config,
                              const launch::SessionOptions& options) {
  static const DemoOrganization kBaseline{"static", 1, 1};
  static const DemoOrganization kStatic[] = {{"static", 8, 4}, {"static", 32, 1}, {"static", 16, 2}};
  static const DemoOrganization kRobust{"robust", 32, 1};
  static const DemoOrganization kDws{"dws", 16, 2};
  RobustDemoRow row;
  row.baseline = run_organization(l, config, kBaseline, options, row.problems);
  for (const DemoOrganization& o : kStatic) {
    const DemoRun r = run_organization(l, config, o, options, row.problems);
    if (r.cycles != 0 && (row.best.cycles == 0 || r.cycles < row.best.cycles)) {
      row.best = r;
      row.best_label = o.label();
    }
  }
  row.robust = run_organization(l, config, kRobust, options, row.problems);
  row.dws = run_organization(l, config, kDws, options, row.problems);
  return row;
}

TimingDemoRow timing_demo_row(const std::filesystem::path& launch_file, const config::MachineConfig& machine,
                              const launch::SessionOptions& options,
                              const std::map<std::string, std::string>& functional_sha256) {
  TimingDemoRow row;
  sim::ChildResult t;
  try {
    t = sim::run_timing_child(launch::load_launch(launch_file), options, machine);
  } catch (const std::exception& e) {
    t.error = e.what();
  }
  if (!t.ok()) {
    row.error = t.error;
    return row;
  }
  const stats::Group s = t.stats();
  row.same_as_functional = t.failures.empty();
  for (const auto& [name, sha] : functional_sha256) {
    const auto found = t.sha256.find(name);
    row.same_as_functional = row.same_as_functional && found != t.sha256.end() && found->second == sha;
  }
  const stats::Group l1 = s.total("l1"), dram = s.total("dram");
  row.cycles = s.integer("cycles");
  row.ipc = s.real("ipc");
  row.simd_utilization = s.real("simd_utilization");
  row.l1_hits = l1.integer("hits");
  row.l1_accesses = l1.integer("reads") + l1.integer("writes");
  row.dram_row_hits = dram.integer("row_hits");
  row.dram_rows = dram.integer("row_hits") + dram.integer("row_misses");
  row.memory_stalls = s.element("stalls", "memory").integer();
  for (const stats::Value& n : s.vector("stalls")) row.stalls += n.integer();
  return row;
}

std::vector<double> compaction_demo_speedups(const launch::Launch& l, const std::filesystem::path& config,
                                             const launch::SessionOptions& options) {
  static const StudyMechanism kTimed[] = {
      {Compaction::none, NamedPermutation::kIdentity},  {Compaction::tbc, NamedPermutation::kIdentity},
      {Compaction::tbc, NamedPermutation::kBalanced},   {Compaction::capri, NamedPermutation::kIdentity},
      {Compaction::capri, NamedPermutation::kBalanced}, {Compaction::ideal, NamedPermutation::kIdentity}};
  std::vector<double> cycles;
  for (const StudyMechanism& m : kTimed) {
    config::MachineConfig machine = config::MachineConfig::load(config);
    machine.set("divergence.unit", std::string(traits(unit_of(m.compaction)).name), "demo");
    machine.set("compaction.permutation", std::string(permutation_name(m.permutation)), "demo");
    const sim::ChildResult t = sim::run_timing_child(l, options, machine);
    cycles.push_back(t.ok() ? double(t.cycles()) : 0.0);
  }
  std::vector<double> out;
  for (size_t i = 1; i < cycles.size(); ++i)
    out.push_back(cycles[0] > 0 && cycles[i] > 0 ? cycles[0] / cycles[i] : 0.0);
  return out;
}

namespace {

struct HerdingDemoMechanism {
  const char* name;
  sim::HerdingCli cli;
};

std::vector<HerdingDemoMechanism> herding_mechanisms() {
  std::vector<HerdingDemoMechanism> m(3);
  m[0].name = "branch herding";
  m[0].cli.off = true;  // the launch file's own herding section is not the demo's
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

std::vector<std::string> herding_demo_mechanisms() {
  std::vector<std::string> names;
  for (const HerdingDemoMechanism& m : herding_mechanisms()) names.emplace_back(m.name);
  return names;
}

std::vector<HerdingDemoCell> herding_demo_row(const std::filesystem::path& launch_file,
                                              const std::filesystem::path& config) {
  std::vector<HerdingDemoCell> row;
  for (const HerdingDemoMechanism& m : herding_mechanisms()) {
    HerdingDemoCell& cell = row.emplace_back();
    cell.mechanism = m.name;
    HerdingCompareRequest request;
    request.launch = launch_file;
    request.herding = m.cli;
    request.config = config;
    try {
      const HerdingCompareResult r = compare_herding(request);
      uint64_t bytes = 0, mismatched = 0;
      for (const launch::BufferQuality& q : r.quality) {
        bytes += q.bytes;
        mismatched += q.mismatched_bytes;
      }
      cell.speedup = r.speedup();
      cell.differ_percent = bytes ? 100.0 * double(mismatched) / double(bytes) : 0.0;
    } catch (const std::exception& e) {
      cell.error = e.what();
    }
  }
  return row;
}

}  // namespace simtlm::studies
