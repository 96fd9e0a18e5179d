#include "testbenches/rtl/cosim/workload_trace.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <tuple>

#include "models/launch/session.hpp"
#include "workloads/reference/reference.hpp"

namespace simtlm::cosim {
namespace {

// Groups the branch events of each CTA by (pc, how many times the warp had executed that branch before), so
// the warps of a CTA meet at the same dynamic branch, and emits both sides of every group that diverged in
// at least one warp (thread block compaction only compacts divergent branches).
std::vector<CompactionEvent> compaction_events(const std::vector<BranchEvent>& branches,
                                               uint32_t warps_per_cta) {
  using Key = std::tuple<uint64_t, uint32_t, uint64_t>;  // cta, pc, occurrence
  struct Group {
    uint64_t instruction;
    uint64_t cta;
    uint32_t pc;
    std::vector<uint64_t> taken, not_taken;
    bool diverged = false;
  };
  std::map<std::tuple<uint64_t, uint32_t, uint32_t>, uint64_t> occurrences;  // cta, warp, pc
  std::map<Key, size_t> group_of;
  std::vector<Group> groups;
  for (const BranchEvent& event : branches) {
    const uint64_t occurrence = occurrences[{event.cta, event.warp, event.pc}]++;
    const auto [it, inserted] = group_of.try_emplace(Key{event.cta, event.pc, occurrence}, groups.size());
    if (inserted) {
      groups.push_back({0, event.cta, event.pc, std::vector<uint64_t>(warps_per_cta),
                        std::vector<uint64_t>(warps_per_cta)});
    }
    Group& group = groups[it->second];
    group.instruction = event.instruction;
    group.taken.at(event.warp) = event.taken & event.active;
    group.not_taken.at(event.warp) = event.active & ~event.taken;
    group.diverged |= (event.taken & event.active) != 0 && (event.active & ~event.taken) != 0;
  }
  std::vector<CompactionEvent> events;
  for (const Group& group : groups) {
    if (!group.diverged) continue;
    for (const std::vector<uint64_t>* side : {&group.taken, &group.not_taken}) {
      for (uint32_t first = 0; first < warps_per_cta; first += kCompactorWarps) {
        const uint32_t count = std::min(kCompactorWarps, warps_per_cta - first);
        events.push_back({group.instruction, group.cta, group.pc,
                          std::vector<uint64_t>(side->begin() + first, side->begin() + first + count)});
      }
    }
  }
  return events;
}

}  // namespace

WorkloadTrace record_workload(const std::string& source_dir, const std::string& name) {
  const auto path = std::filesystem::path(source_dir) / "workloads" / name / (name + ".yaml");
  launch::SessionOptions options;
  options.capture_printf = true;
  options.find_reference = workloads::find_reference;
  WorkloadTrace trace;
  trace.workload = name;
  const ptx::Function* kernel = nullptr;
  options.observer = [&](const ptx::WarpContext& warp, uint32_t pc, ptx::LaneMask mask,
                         const ptx::WarpStep& step) {
    const uint64_t cta = warp.cta->linear_id;
    if (step.kind == ptx::StepKind::branch && kernel->code[pc].guard != ptx::kNoReg) {
      trace.branches.push_back({warp.clock, cta, warp.warp_in_cta, pc, mask, step.taken & mask});
    } else if (step.kind == ptx::StepKind::memory && step.mem.space == ptx::Space::global &&
               !step.mem.is_store && !step.mem.is_atomic && step.active) {
      LoadEvent& load =
          trace.loads.emplace_back(LoadEvent{warp.clock, cta, warp.warp_in_cta, pc, step.active, {}});
      for (uint32_t lane = 0; lane < kTraceWidth; ++lane) {
        if ((step.active >> lane) & 1) load.address[lane] = step.mem.addr[lane];
      }
    }
  };
  launch::Session session(launch::load_launch(path), options);
  kernel = &session.kernel();
  const launch::SessionResult result = session.run();
  if (!result.ok()) throw std::runtime_error("workload " + name + " failed: " + result.failures.front());
  trace.stats = result.stats;
  const auto threads_per_cta = static_cast<uint32_t>(session.launch().block.count());
  trace.compactions = compaction_events(trace.branches, (threads_per_cta + kTraceWidth - 1) / kTraceWidth);
  std::stable_sort(
      trace.compactions.begin(), trace.compactions.end(),
      [](const CompactionEvent& a, const CompactionEvent& b) { return a.instruction < b.instruction; });
  return trace;
}

const std::vector<std::string>& suite_workloads() {
  static const std::vector<std::string> names = {"backprop",
                                                 "bfs",
                                                 "bitonic",
                                                 "convolution",
                                                 "double_loop",
                                                 "histogram",
                                                 "julia",
                                                 "mandelbrot",
                                                 "mandelbrot_herding",
                                                 "nbody",
                                                 "recursive_gaussian",
                                                 "reduction",
                                                 "single_loop",
                                                 "sobel"};
  return names;
}

}  // namespace simtlm::cosim
