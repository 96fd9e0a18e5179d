// CAPRI (Rhu and Erez, ISCA 2012) as simtlm interprets it (docs/validation/slp.md, "Differences in the CAPRI
// baseline"): thread block compaction where a branch predicted not to gain from compaction runs without
// synchronizing the CTA. A 2-bit compaction-adequacy counter per branch PC predicts; warps that can no longer
// meet their CTA run the rest of a region on a stack of their own ("free mode").
#pragma once

#include <map>
#include <vector>

#include "hw/divergence/block_compaction.hpp"
#include "models/ptx/simt_stack.hpp"

namespace simtlm::hw {

class CapriCompaction final : public BlockCompaction {
 public:
  CapriCompaction(const DivergenceParams& params, const TimingKernel& kernel, SlotHost& host,
                  const CompactionUnits& units)
      : BlockCompaction(params, kernel, host, units), own_(params.contexts), rounds_(params.ctas) {}

  void next_kernel() override;
  void branch(uint32_t slot, uint32_t pc, const PartMasks& taken, uint64_t now) override;
  void exit(uint32_t slot, uint32_t pc, const PartMasks& exited, uint64_t now) override;

 protected:
  bool skips_synchronization(uint32_t slot, uint32_t pc, const PartMasks& taken, uint64_t now) override;
  bool unblock(Cta& cta, uint64_t now) override;
  void resolved(Cta& cta, uint32_t pc, bool adequate) override;
  void synchronized(Cta& cta) override;
  void formed(Cta& cta) override;
  void slot_formed(uint32_t slot) override { own(slot).free = false; }
  void advance(uint32_t slot, uint32_t next_pc, uint64_t now) override;

 private:
  struct OwnState {  // per slot
    // Per branch PC, executions since the CTA last resolved. Known defect kept for issue 17 (CAPRI as
    // published): a CTA that takes the slot after another starts with the counts that CTA left.
    std::map<uint32_t, uint32_t> executions;
    // After a branch that cannot meet its CTA, the warp runs on its own stack (over the positions of
    // `threads`) until it reconverges at free_until.
    bool free = false;
    uint32_t free_until = ptx::kNoTarget;
    ptx::SimtStack local;
    std::vector<std::pair<uint32_t, uint32_t>> threads;  // position -> (CTA warp, lane)
  };
  struct Round {  // outcomes of skipped executions of one branch, one per warp
    CtaOutcome outcome;
    std::vector<uint32_t> slots;  // warp slots that recorded one
  };

  OwnState& own(uint32_t slot) { return own_[slot]; }
  bool skips(Cta& cta, uint32_t slot, uint32_t pc, const PartMasks& taken);
  void train(uint32_t pc, bool adequate);
  bool compaction_pays(const CtaOutcome& o);
  ptx::LaneMask positions_of(uint32_t slot, const PartMasks& by_part);
  void go_free(uint32_t slot, uint32_t pc, const PartMasks& taken, uint64_t now);
  void free_branch(uint32_t slot, uint32_t pc, const PartMasks& taken, uint64_t now);
  void free_exit(uint32_t slot, ptx::LaneMask positions, uint32_t pc, uint64_t now);
  void free_settle(uint32_t slot, uint64_t now);

  std::vector<OwnState> own_;
  std::vector<std::map<uint32_t, Round>> rounds_;  // per CTA, by branch PC
  std::vector<uint8_t> counter_;   // 2-bit compaction-adequacy counter per PC (sized on first use)
  std::vector<uint32_t> skipped_;  // CTA executions skipped since the last training, per PC
};

}  // namespace simtlm::hw
