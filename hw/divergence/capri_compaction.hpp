// CAPRI (Rhu and Erez, ISCA 2012; docs/slp.md, "CAPRI"): thread block compaction that stalls only the warps
// predicted to gain from it. At a conditional branch on its CTA's path a warp asks the compaction-adequacy
// prediction table (hw/units/compaction_adequacy_table.hpp). Predicted adequate, it waits for its CTA as
// under TBC. Predicted not to pay, it goes on at once: on the CTA's path when its threads agree, and on a
// reconvergence stack of its own for the branch's region when they split ("free mode", the per-warp stack of
// the baseline) provided it holds all the path's threads of each CTA warp it holds threads of (else it
// waits: one CTA warp's threads never run as two streams), rejoining the CTA's path at the branch's
// reconvergence point so later branches compact again. Every CTA-wide outcome trains the table: a
// synchronized execution when the CTA resolves it, and a skipped one from the outcomes the warps recorded as
// they went on, once each warp on the path has passed it.
#pragma once

#include <map>
#include <vector>

#include "hw/divergence/block_compaction.hpp"
#include "hw/units/compaction_adequacy_table.hpp"
#include "models/ptx/simt_stack.hpp"

namespace simtlm::hw {

class CapriCompaction final : public BlockCompaction {
 public:
  CapriCompaction(const DivergenceParams& params, const TimingKernel& kernel, SlotHost& host,
                  const CompactionUnits& units)
      : BlockCompaction(params, kernel, host, units),
        own_(params.contexts),
        rounds_(params.ctas),
        table_(params.capri_table_entries, params.capri_miss_adequate) {}

  void next_kernel() override;
  void launch_cta(uint32_t cta, uint64_t linear_id, const std::vector<uint32_t>& contexts,
                  const std::vector<ptx::LaneMask>& valid, uint64_t now) override;
  void branch(uint32_t slot, uint32_t pc, const PartMasks& taken, uint64_t now) override;
  void exit(uint32_t slot, uint32_t pc, const PartMasks& exited, uint64_t now) override;
  bool append_state(std::vector<uint64_t>& out) const override;  // hw/divergence/unit_state.cpp

 protected:
  bool skips_synchronization(uint32_t slot, uint32_t pc, const PartMasks& taken, uint64_t now) override;
  bool unblock(Cta& cta, uint64_t now) override;
  bool park_stale(Cta& cta, uint64_t now);
  static size_t holder_of(const Cta& cta, uint32_t pc, const std::vector<Part>& parts, size_t below);
  void resolved(Cta& cta, uint32_t pc, bool adequate) override;
  void synchronized(Cta& cta) override;
  void formed(Cta& cta) override;
  void slot_formed(uint32_t slot) override { own(slot).free = false; }
  bool off_path(uint32_t slot) const override { return own_[slot].free; }
  bool returns_to_top(const Cta& cta) const override;
  void advance(uint32_t slot, uint32_t next_pc, uint64_t now) override;

 private:
  struct OwnState {                           // per slot
    std::map<uint32_t, uint32_t> executions;  // per branch PC, executions since the CTA last synchronized
    // Free mode: the warp runs off the CTA's path on its own stack (over the positions of `threads`). Its
    // threads left the path's top entry; when the warp reconverges at free_until (the branch's reconvergence
    // point) and that entry is still on top (the stamp did not move), they rejoin it. Otherwise the whole
    // warp stops where an entry of the CTA's stack resumes it (at the latest, the reconvergence point of the
    // entry it left, where the entry below holds it); it is never handed back in parts.
    bool free = false;
    uint32_t free_until = ptx::kNoTarget;
    uint64_t left_stamp = 0;
    size_t left_depth = 0;  // the CTA's stack then: entries from left_depth - 1 up came from the one it left
    ptx::SimtStack local;
    std::vector<std::pair<uint32_t, uint32_t>> threads;  // position -> (CTA warp, lane)
  };
  struct Round {  // outcomes of skipped executions of one branch, one per warp
    CtaOutcome outcome;
    std::vector<uint32_t> slots;  // warp slots that recorded one
  };

  OwnState& own(uint32_t slot) { return own_[slot]; }
  bool skips(Cta& cta, uint32_t slot, uint32_t pc, const PartMasks& taken, bool splits);
  bool holds_its_warps_whole(const Cta& cta, uint32_t slot) const;
  void train(uint32_t pc, bool adequate);
  bool compaction_pays(const CtaOutcome& o);
  ptx::LaneMask positions_of(uint32_t slot, const PartMasks& by_part);
  void go_free(uint32_t slot, uint32_t pc, const PartMasks& taken, uint64_t now);
  void free_branch(uint32_t slot, uint32_t pc, const PartMasks& taken, uint64_t now);
  void free_exit(uint32_t slot, ptx::LaneMask positions, uint32_t pc, uint64_t now);
  void free_settle(uint32_t slot, uint64_t now);
  void rejoin(uint32_t slot, uint32_t pc, uint64_t now);
  void leave(uint32_t slot, uint64_t now);       // the warp has no thread left off the path
  void hand_back(uint32_t slot, size_t holder);  // the whole warp waits in the CTA's entry `holder`

  std::vector<OwnState> own_;
  std::vector<std::map<uint32_t, Round>> rounds_;  // per CTA, by branch PC
  CompactionAdequacyTable table_;
};

}  // namespace simtlm::hw
