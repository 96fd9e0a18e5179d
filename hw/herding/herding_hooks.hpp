// Branch herding and data herding (branch/data herding paper, Sections III and IV) as the two execution
// hooks of models/ptx/hooks.hpp: the functional runner and the timing model both execute through them, so a
// herded run's outputs are the same in either mode (up to the order in which a max_instances budget runs
// out).
//
// Branch herding: at a herded conditional branch that diverges, the majority unit decides one direction and
// every active lane takes it, so the reconvergence stack never sees the split. Data herding: at a herded
// global load, the popular-block selector keeps the memory block most active lanes read and moves every other
// lane into it at its own offset, so the coalescer sends one request. Both count herding instances against
// the spec's max_instances and stop herding once it is reached (the paper's runtime quality monitor).
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "common/stats.hpp"
#include "hw/herding/herd_plan.hpp"
#include "hw/units/majority_unit.hpp"
#include "hw/units/popular_block_selector.hpp"
#include "models/config/config_section.hpp"
#include "models/launch/herding_spec.hpp"
#include "models/ptx/hooks.hpp"

namespace simtlm::hw {

// What the machine says of herding, read once from its own key (docs/herding.md): the coalescer's
// popular-block selector's rounds (lsu.herding_selector_rounds, rtl/popular_block_selector.v's ROUNDS).
struct HerdingParams {
  uint32_t selector_rounds = 1;  // all comparisons in one cycle
};
inline HerdingParams herding_params(const config::MachineConfig& machine) {
  return HerdingParams{config::ConfigSection(machine, "lsu").u32("herding_selector_rounds")};
}

struct BranchSiteCounts {
  uint64_t executions = 0;    // warp executions of the branch (herding on or off)
  uint64_t divergent = 0;     // of which the guard split the active lanes
  uint64_t herded = 0;        // of which herding overrode the split
  uint64_t lanes_forced = 0;  // lanes sent the way their guard did not choose
};

struct LoadSiteCounts {
  uint64_t executions = 0;       // warp executions of the load that data herding may touch
  uint64_t herded = 0;           // of which lanes were moved into the popular block
  uint64_t lanes_rewritten = 0;  // lanes moved
  uint64_t blocks_before = 0;    // distinct blocks the active lanes asked for (requests without herding)
  uint64_t blocks_after = 0;     // distinct blocks read (1 per herded execution)
};

class Herding final : public ptx::BranchHook, public ptx::LoadAddressHook {
 public:
  // `majority` and `selector` decide (the C++ models or their Verilated twins); they must outlive the hooks.
  // At the default threshold the tie rule is the majority unit's own: build it with spec.tie.
  Herding(launch::HerdingSpec spec, BranchMajority& majority, BlockSelection& selector);
  ~Herding() override;

  ptx::BranchDecision branch_taken(const ptx::BranchEvent& event) override;
  uint32_t rewrite_load(const ptx::LoadEvent& event, ptx::LaneAddresses& address) override;

  const launch::HerdingSpec& spec() const { return spec_; }
  // The machine's popular-block selector compares group_lanes / rounds lanes per cycle; unless the spec gives
  // load_cycles, a herded load costs the selector's latency (rtl/popular_block_selector.v: ROUNDS + 1).
  // Throws std::invalid_argument unless `rounds` is a power of two dividing the group (a warp without data
  // herding).
  void set_selector_rounds(uint32_t rounds);
  uint32_t selector_rounds() const { return selector_rounds_; }
  uint32_t load_cycles() const;
  // Where load_cycles() comes from: "launch" (the spec's load_cycles) or "selector".
  const char* load_cycles_source() const { return spec_.load_cycles ? "launch" : "selector"; }
  bool herds_loads() const { return spec_.loads.any() || !spec_.buffers.empty(); }
  uint64_t instances() const { return instances_; }
  // Counts every event as usual but leaves every branch and load as the kernel computed it.
  void set_observe_only(bool observe) { observe_ = observe; }
  bool switched_off() const { return spec_.max_instances != 0 && instances_ >= spec_.max_instances; }
  // Per kernel and site: the counts above, the plan's skipped sites, the budget (herding_stats_decl()).
  stats::Group statistics() const;

 private:
  struct KernelState;
  KernelState& state(const ptx::Function& kernel, const ptx::Module* module);
  bool herd_direction(uint64_t taken, uint64_t active);

  launch::HerdingSpec spec_;
  BranchMajority& majority_;
  BlockSelection& selector_;
  std::vector<std::unique_ptr<KernelState>> kernels_;
  KernelState* last_ = nullptr;
  uint32_t selector_rounds_ = 1;  // lsu.herding_selector_rounds' default: all comparisons in one cycle
  uint64_t instances_ = 0;
  bool observe_ = false;
};

}  // namespace simtlm::hw
