// Thread block compaction (Fung and Aamodt, HPCA 2011; the SLP paper builds on it, Section 2.3): each CTA
// runs on one CTA-wide post-dominator stack. At a conditional branch every warp of the CTA's current path
// waits until all have executed it; if the CTA's threads split, both paths are pushed and the compactor forms
// the fewest warps it can for the path that runs, each thread in its home lane (the lane permutation, fixed
// at launch); the same happens when a path reaches its reconvergence point. Warps keep running without
// synchronizing through unconditional branches. `ideal` packs any thread into any lane (the upper bound).
// CapriCompaction (capri_compaction.hpp) overrides the protected hooks.
#pragma once

#include <memory>
#include <vector>

#include "hw/divergence/divergence_unit.hpp"

namespace simtlm::hw {

class BlockCompaction : public DivergenceUnit {
 public:
  BlockCompaction(const DivergenceParams& params, const TimingKernel& kernel, SlotHost& host,
                  const CompactionUnits& units);

  std::string refusal() const override;
  bool slots_share_contexts() const override { return true; }
  void launch_cta(uint32_t cta, uint64_t linear_id, const std::vector<uint32_t>& contexts,
                  const std::vector<ptx::LaneMask>& valid, uint64_t now) override;
  // Threads of several CTA warps, packed in CTA-warp order.
  SlotView view(uint32_t slot) const override;
  ptx::LaneMask taken_lanes(uint32_t slot, const PartMasks& taken) const override;
  void branch(uint32_t slot, uint32_t pc, const PartMasks& taken, uint64_t now) override;
  void exit(uint32_t slot, uint32_t pc, const PartMasks& exited, uint64_t now) override;
  void executed(uint32_t, uint32_t, ptx::LaneMask, uint64_t) override {}
  void barrier_arrived(uint32_t slot, uint64_t now) override;
  void completed(uint32_t slot, uint32_t pc, uint64_t now) override { advance(slot, pc + 1, now); }

  // The warps the compactor forms from per-CTA-warp masks, as parts (also what count_paths compares).
  std::vector<std::vector<Part>> form_warps(const std::vector<ptx::LaneMask>& mask);
  bool append_state(std::vector<uint64_t>& out) const override;  // hw/divergence/unit_state.cpp

 protected:
  // A conditional branch's outcome over a CTA, per CTA warp: threads that take it and threads that fall
  // through.
  struct CtaOutcome {
    std::vector<ptx::LaneMask> taken, not_taken;
    explicit CtaOutcome(uint32_t warps = 0) : taken(warps, 0), not_taken(warps, 0) {}
    void add(const std::vector<Part>& parts, const PartMasks& taken_by_part);  // taken lanes per part
    bool diverged() const;                                                     // threads on both paths
  };
  struct CtaEntry {  // an entry of the CTA-wide post-dominator stack
    uint32_t pc = 0;
    uint32_t reconvergence_pc = ptx::kNoTarget;
    std::vector<ptx::LaneMask> mask;  // per CTA warp
  };
  struct Cta {
    bool live = false;
    uint64_t linear_id = 0;
    std::vector<uint32_t> slots;  // one per CTA warp, in order; formed warps take them from the front
    uint32_t live_warps = 0;      // slots running
    std::vector<CtaEntry> stack;
    uint32_t at_sync = 0;     // live slots waiting
    uint32_t free_warps = 0;  // CAPRI: live slots running a region on a stack of their own, off the path
    // CAPRI: their threads, per CTA warp. They stay in the stack's masks (the entries they will come back to
    // hold them) but are not formed into warps.
    std::vector<ptx::LaneMask> off_path;
    uint64_t stamp = 0;  // grows whenever an entry is pushed or popped
    bool sync_at_branch = false;
    uint32_t sync_pc = 0;
  };

  // Hooks of CAPRI. A warp whose threads all agree at the branch at pc goes on without waiting when this
  // returns true.
  virtual bool skips_synchronization(uint32_t /*slot*/, uint32_t /*pc*/, const PartMasks& /*taken*/,
                                     uint64_t /*now*/) {
    return false;
  }
  // Once every live warp of the CTA waits: true when it handled a state where they cannot all meet.
  virtual bool unblock(Cta& /*cta*/, uint64_t /*now*/) { return false; }
  // The CTA resolved a branch at pc; `adequate`: compaction saved a warp on one of its paths.
  virtual void resolved(Cta& /*cta*/, uint32_t /*pc*/, bool /*adequate*/) {}
  virtual void synchronized(Cta& /*cta*/) {}      // the CTA's warps are at one place again
  virtual void formed(Cta& /*cta*/) {}            // the CTA's warps were formed afresh
  virtual void slot_formed(uint32_t /*slot*/) {}  // the slot holds a newly formed warp
  // CAPRI: the slot runs threads off the CTA's path; formation neither stops it nor gives its slot away.
  virtual bool off_path(uint32_t /*slot*/) const { return false; }
  // CAPRI: a warp off the path will come back to the top entry's reconvergence point (so it waits for it).
  virtual bool returns_to_top(const Cta& /*cta*/) const { return false; }

  // The slot goes on at next_pc on the CTA's path; waits there when it is the path's reconvergence point.
  virtual void advance(uint32_t slot, uint32_t next_pc, uint64_t now);
  void exit_threads(uint32_t slot, const PartMasks& exited, uint32_t pc, uint64_t now);
  void threads_exit(uint32_t slot, const std::vector<Part>& gone);  // from the slot, the stack and barriers
  void stop(uint32_t slot);
  void check(Cta& cta, uint64_t now);
  void resolve(Cta& cta, uint64_t now);
  void continue_path(Cta& cta, uint32_t pc, uint64_t now);
  void form(Cta& cta, uint64_t now);
  bool count_paths(uint32_t pc, const CtaOutcome& o);  // true when compaction saved a warp on a path
  Cta& cta_of(uint32_t slot) { return ctas_[slots_[slot].cta]; }
  uint32_t cta_index(const Cta& cta) const { return static_cast<uint32_t>(&cta - ctas_.data()); }
  std::vector<std::pair<uint32_t, uint64_t>> live_slots(const Cta& cta, bool waiting_only) const;

  const CompactionUnits units_;
  std::unique_ptr<LanePermutationMap> permutation_;  // home lanes, when no unit is given
  std::vector<Cta> ctas_;
  std::vector<PartMasks> sync_taken_;  // per slot: taken lanes per part of the branch it waits at
  std::vector<uint64_t> wait_since_;   // per slot: the cycle it began to wait for its CTA
  void start_waiting(uint32_t slot, uint64_t now);
  void stop_waiting(uint32_t slot, uint64_t now);  // the slot waited: its cycles count as synchronization
};

}  // namespace simtlm::hw
