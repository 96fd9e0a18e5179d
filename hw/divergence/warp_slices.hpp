// Task mode's divergence unit (robust-simd.txt; docs/robust-simd.md): a WPU of `width` lanes and `depth`
// warps runs a parallel-for whose tasks are the grid's threads. Its warps are divided into warp-slices of
// neighbouring lanes by the WarpSliceTable, each slice with its own reconvergence stack and issue slot; how
// many slices run (depth) and how wide they are (width) is fixed (policy static), adapted at the end of each
// sampling interval by the AdaptationStateUnit from cycles per task (robust), or fixed with dynamic warp
// subdivision (dws), or adapted and then compared with DWS (robust_dws, Section VII-C).
//
// Tasks: a slice takes as many consecutive task indices as it has lanes when all its threads finished their
// previous tasks (the task loop's end is the reconvergence point of the task body), so neighbouring tasks run
// on adjacent lanes (symbiotic tiling); the WPU's share of the grid is an even split over the WPUs.
//
// Slots and contexts: slot e (a WST entry) runs the slice's threads in context e of the WPU's one
// pseudo-CTA, in their home lanes; tasks start with fresh registers, so a slice never carries registers over
// a reconfiguration. A policy with DWS adds slot capacity + e for the second split of slice e, on the same
// context; the others have no such slots, since the SM looks at every slot on every cycle.
#pragma once

#include <memory>
#include <vector>

#include "hw/divergence/divergence_unit.hpp"
#include "hw/divergence/wpu_stats.hpp"
#include "hw/units/adaptation_state_unit.hpp"
#include "hw/units/warp_slice_table.hpp"

namespace simtlm::hw {

class WarpSlices final : public DivergenceUnit {
 public:
  WarpSlices(const DivergenceParams& params, const TimingKernel& kernel, SlotHost& host);

  std::string refusal() const override;
  void next_kernel() override;
  bool slots_share_contexts() const override { return p_.wpu.subdivides(); }
  void launch_cta(uint32_t cta, uint64_t linear_id, const std::vector<uint32_t>& contexts,
                  const std::vector<ptx::LaneMask>& valid, uint64_t now) override;
  SlotView view(uint32_t slot) const override;
  ptx::LaneMask taken_lanes(uint32_t, const PartMasks& taken) const override { return taken[0]; }
  void branch(uint32_t slot, uint32_t pc, const PartMasks& taken, uint64_t now) override;
  void exit(uint32_t slot, uint32_t pc, const PartMasks& exited, uint64_t now) override;
  void executed(uint32_t slot, uint32_t pc, ptx::LaneMask call_lanes, uint64_t now) override;
  void completed(uint32_t, uint32_t, uint64_t) override {}
  bool memory_event(uint32_t slot, const MemoryEvent& event, uint64_t now) override;

  void add_statistics(stats::Group& run) const override { add_wpu_totals(run.group("wpu"), wpu_); }
  const WarpSliceTable& table() const { return wst_; }
  Organization organization() const { return org_; }

 private:
  enum class Phase : uint8_t { adapting, dws_trial, executing };
  // DWS: the second split of a slice and what the two wait for (warp_slices_dws.cpp).
  struct Subdivision {
    bool live = false;
    bool memory = false;      // hits ran ahead of misses (else: a divergent branch's fall-through path)
    ptx::LaneMask lanes = 0;  // the second split's lanes
    uint32_t pc = 0;          // its next PC
    uint32_t end_pc = 0;      // branch split: the reconvergence PC its path ends at
    bool second_waits = false;
    bool first_waits = false;
    uint32_t first_pc = 0;  // memory split: the first split's next PC (the stack stays at the split PC)
  };

  uint32_t capacity() const { return wst_.capacity(); }
  void configure(Organization org, uint64_t ready_cycle);
  bool fetch(uint32_t e, uint64_t ready_cycle);  // false: no task left for it
  void show(uint32_t e);                         // the slot mirrors the slice's stack
  void settle(uint32_t e, uint64_t now);         // implicit exit past the last instruction
  void exit_lanes(uint32_t e, ptx::LaneMask lanes, uint32_t next_pc, uint64_t now);
  void slice_finished(uint32_t e, uint64_t now);
  void end_interval(uint64_t now);
  void finish(uint64_t now);
  uint64_t interval_threshold() const;
  double best_cpt_of(Organization org) const;

  // DWS (warp_slices_dws.cpp).
  bool is_sync_point(uint32_t e, uint32_t pc) const;
  void split_branch(uint32_t e, uint32_t pc, ptx::LaneMask not_taken, uint32_t reconvergence_pc,
                    uint64_t now);
  void second_step(uint32_t e, uint32_t next_pc, uint64_t now);  // the second split went on to next_pc
  void first_step(uint32_t e, uint32_t next_pc, uint64_t now);   // the same for the first, memory split
  void after_stack_change(uint32_t e, uint64_t now);             // branch split: the first reached its row
  void try_join(uint32_t e, uint64_t now);
  void start_second(uint32_t e, uint64_t ready_cycle);
  void hits_answered(uint32_t slot, ptx::LaneMask hit_lanes, uint64_t now);  // memory split
  void accesses_done(uint32_t slot, uint64_t now);

  WarpSliceTable wst_;
  std::unique_ptr<AdaptationStateUnit> asu_;
  std::vector<Subdivision> sub_;
  WpuStats wpu_;
  Organization org_;
  Phase phase_ = Phase::executing;
  bool dws_ = false;  // subdivision on now
  bool live_ = false;
  uint32_t cta_ = 0;
  uint64_t tasks_left_ = 0;  // of the WPU's task partition, not given to a slice yet
  uint64_t launch_cycle_ = 0, interval_start_ = 0, interval_tasks_ = 0;
  uint32_t running_ = 0;  // slices with a task
  bool draining_ = false;
};

}  // namespace simtlm::hw
