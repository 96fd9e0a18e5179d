// Per-warp reconvergence stacks (divergence-cost paper; GPGPU-Sim's post-dominator stack): every issue slot
// is one CTA warp with its own SimtStack, of either discipline, spilling to memory through its SpillEngine.
#pragma once

#include <memory>
#include <vector>

#include "hw/divergence/divergence_unit.hpp"
#include "hw/simt_stack.hpp"

namespace simtlm::hw {

class WarpStacks : public DivergenceUnit {
 public:
  WarpStacks(const DivergenceParams& params, const TimingKernel& kernel, SlotHost& host);

  void launch_cta(uint32_t cta, uint64_t linear_id, const std::vector<uint32_t>& contexts,
                  const std::vector<ptx::LaneMask>& valid, uint64_t now) override;
  void before_issue(uint32_t slot, uint32_t pc, uint64_t now) override;
  // A slot holds one CTA warp, its lanes in place.
  SlotView view(uint32_t slot) const override {
    return {slots_[slot].parts[0].mask, static_cast<uint32_t>(stacks_[slot]->depth())};
  }
  ptx::LaneMask taken_lanes(uint32_t, const PartMasks& taken) const override { return taken[0]; }
  void branch(uint32_t slot, uint32_t pc, const PartMasks& taken, uint64_t now) override;
  void exit(uint32_t slot, uint32_t pc, const PartMasks& exited, uint64_t now) override;
  void executed(uint32_t slot, uint32_t pc, ptx::LaneMask call_lanes, uint64_t now) override;
  void indirect_call(uint32_t slot, uint32_t pc, ptx::LaneMask call_lanes,
                     const std::array<uint32_t, ptx::kWarpSize>& entry_pcs, uint64_t now) override;
  void completed(uint32_t slot, uint32_t, uint64_t now) override { settle(slot, now); }

  const SimtStack& stack(uint32_t slot) const { return *stacks_[slot]; }
  bool append_state(std::vector<uint64_t>& out) const override;  // hw/divergence/unit_state.cpp

 private:
  // Charges the update's cycles, sends its spills and fills, and shows the stack's path in the slot.
  void apply(uint32_t slot, const StackUpdate& u, uint64_t now, uint32_t pc);
  void exit_lanes(uint32_t slot, ptx::LaneMask lanes, uint32_t next_pc, uint64_t now);
  void settle(uint32_t slot, uint64_t now);  // implicit exit past the last instruction
  void finish_warp(uint32_t slot);
  bool is_device_call(uint32_t pc) const;

  std::vector<std::unique_ptr<SimtStack>> stacks_;
  std::vector<uint32_t>
      previous_pc_;  // per slot: the token discipline's SSY points fire on entering a region
  struct CtaState {
    bool live = false;
    uint32_t live_warps = 0;
  };
  std::vector<CtaState> ctas_;
};

}  // namespace simtlm::hw
