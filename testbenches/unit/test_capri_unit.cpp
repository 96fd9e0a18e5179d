// CAPRI's decisions on hand-written kernels (hw/divergence/capri_compaction.*, docs/slp.md "CAPRI"): the
// prediction table as a unit, a warp that goes on at a branch predicted not to pay (on the CTA's path when
// its threads agree, on a stack of its own when they split, rejoining the path at the reconvergence point), a
// warp that joins a synchronization its CTA already waits at, a compaction that pays making the next CTA
// wait, and the accuracy the table is scored by.
#include <gtest/gtest.h>

#include "hw/units/compaction_adequacy_table.hpp"
#include "testbenches/unit/divergence_fixture.hpp"

namespace simtlm::hw {
namespace {

using namespace simtlm::hw::testing;  // NOLINT(google-build-using-namespace)

TEST(CompactionAdequacyTable,
     AMissPredictsAdequateAndEachOutcomeIsRememberedUntilAnotherBranchTakesTheEntry) {
  CompactionAdequacyTable table(4);
  EXPECT_TRUE(table.predict(9));
  EXPECT_FALSE(table.update(9, false));  // predicted adequate, was not
  EXPECT_FALSE(table.predict(9));
  EXPECT_TRUE(table.predict(10));        // another entry
  EXPECT_TRUE(table.predict(5));         // same index as 9 (9 % 4 == 5 % 4), other tag: a miss
  EXPECT_TRUE(table.update(9, false));   // the entry still holds 9
  EXPECT_TRUE(table.update(5, true));    // a miss predicts adequate: right; 5 now owns the entry
  EXPECT_TRUE(table.predict(9));         // 9 was evicted: a miss again
  EXPECT_FALSE(table.update(5, false));  // one history bit: the last outcome decides
  EXPECT_FALSE(table.predict(5));
  table.clear();
  EXPECT_TRUE(table.predict(5));
  // 4 entries of 32-bit PCs: valid + 30 tag bits + 1 history bit each.
  EXPECT_EQ(table.storage_bits(32), 4u * 32u);
  EXPECT_EQ(CompactionAdequacyTable(32).storage_bits(32), 32u * (1u + 27u + 1u));  // docs/slp.md, 116 bytes
  EXPECT_THROW(CompactionAdequacyTable(0), std::invalid_argument);
}

TEST(CompactionAdequacyTable, UnderTheNotAdequateMissPolicyAMissLetsTheWarpsGoOn) {
  CompactionAdequacyTable table(4, false);
  EXPECT_FALSE(table.predict(9));
  EXPECT_FALSE(table.update(9, true));  // predicted not adequate, was
  EXPECT_TRUE(table.predict(9));
  EXPECT_FALSE(table.predict(5));  // same index, other tag: a miss
  table.clear();
  EXPECT_FALSE(table.predict(9));
}

// Runs the two warps of a fresh CTA to the branch at pc 2 of kIfElse.
void to_branch(DivergenceUnit& unit, uint32_t cta, std::vector<uint32_t> slots, uint64_t now) {
  unit.launch_cta(cta, cta, slots, std::vector<ptx::LaneMask>(slots.size(), 0xffffffffu), now);
  for (uint32_t s : slots) {
    unit.completed(s, 0, now);
    unit.completed(s, 1, now);
  }
}

TEST(CapriUnit, AWarpThatSplitsAtABranchPredictedNotToPayRunsTheRegionOnItsOwnStackAndRejoinsThePath) {
  Kernel k(kIfElse, 64);
  RecordingHost host;
  auto unit = make_divergence_unit(params(Compaction::capri), *k.timing, host, {});
  // First CTA: a miss predicts adequate, both warps wait; the CTA does not diverge, so the table learns
  // "does not pay" and scores its prediction wrong.
  to_branch(*unit, 0, {0, 1}, 1);
  unit->branch(0, 2, per_part({0xffffffffu}), 2);
  EXPECT_TRUE(unit->slots()[0].waits);
  unit->branch(1, 2, per_part({0xffffffffu}), 3);
  const CompactionStats& c = unit->stats().compaction;
  EXPECT_EQ(c.cta_branches, 1u);
  EXPECT_EQ(c.capri_outcomes, 1u);
  EXPECT_EQ(c.capri_correct, 0u);
  EXPECT_EQ(c.sync_wait_cycles, 1u);  // slot 0 waited from cycle 2 to 3
  for (uint32_t s : {0u, 1u}) {
    ASSERT_EQ(unit->slots()[s].pc, 5u);
    unit->completed(s, 5, 4);  // both reach ret
    unit->exit(s, 6, per_part({0xffffffffu}), 5);
  }
  // Second CTA on the same slots: warp 0's threads split, yet it goes on at once, on its own stack.
  to_branch(*unit, 0, {0, 1}, 10);
  unit->branch(0, 2, per_part({0x0000ffffu}), 11);
  EXPECT_FALSE(unit->slots()[0].waits);
  EXPECT_EQ(c.capri_skipped, 1u);
  EXPECT_EQ(c.capri_free_regions, 1u);
  EXPECT_EQ(unit->view(0).depth, 1u);  // the CTA's stack did not move
  const uint32_t first_pc = unit->slots()[0].pc;
  const std::string first = parts_of(unit->slots()[0]);
  ASSERT_TRUE((first_pc == 5 && first == "0:0000ffff") || (first_pc == 3 && first == "0:ffff0000"))
      << first_pc << " " << first;
  // Warp 1's threads agree: it also goes on, on the CTA's path; both warps have now recorded an outcome,
  // which trains the table: warp 0's taken lanes 0-15 and warp 1's 0-31 share home lanes, so compaction would
  // not have saved a warp, as predicted.
  unit->branch(1, 2, per_part({0xffffffffu}), 12);
  EXPECT_FALSE(unit->slots()[1].waits);
  EXPECT_EQ(unit->slots()[1].pc, 5u);
  EXPECT_EQ(c.capri_skipped, 2u);
  EXPECT_EQ(c.capri_free_regions, 1u);
  EXPECT_EQ(c.capri_outcomes, 2u);
  EXPECT_EQ(c.capri_correct, 1u);
  EXPECT_EQ(c.cta_branches, 1u);
  // Warp 0 runs its first path to the reconvergence point, then the other, then rejoins with all its threads.
  if (first_pc == 5) {
    unit->completed(0, 5, 13);
    EXPECT_EQ(unit->slots()[0].pc, 3u);
    EXPECT_EQ(parts_of(unit->slots()[0]), "0:ffff0000");
    unit->completed(0, 3, 14);
    unit->branch(0, 4, per_part({0xffff0000u}), 15);  // bra.uni JOIN
  } else {
    unit->completed(0, 3, 13);
    unit->branch(0, 4, per_part({0xffff0000u}), 14);
    EXPECT_EQ(unit->slots()[0].pc, 5u);
    EXPECT_EQ(parts_of(unit->slots()[0]), "0:0000ffff");
    unit->completed(0, 5, 15);
  }
  EXPECT_EQ(unit->slots()[0].pc, 6u);
  EXPECT_EQ(parts_of(unit->slots()[0]), "0:ffffffff");
  EXPECT_FALSE(unit->slots()[0].waits);
  EXPECT_EQ(c.cta_branches, 1u);  // no synchronization in the second CTA
}

TEST(CapriUnit, AWarpJoinsASynchronizationItsCtaAlreadyWaitsAtWhateverTheTableNowSays) {
  Kernel k(kIfElse, 64);
  RecordingHost host;
  auto unit = make_divergence_unit(params(Compaction::capri), *k.timing, host, {});
  to_branch(*unit, 0, {0, 1}, 1);
  to_branch(*unit, 1, {2, 3}, 1);
  unit->branch(0, 2, per_part({0xffffffffu}), 2);  // a miss: CTA 0's first warp waits
  EXPECT_TRUE(unit->slots()[0].waits);
  // CTA 1 resolves the branch without diverging: the table now says "does not pay".
  unit->branch(2, 2, per_part({0u}), 3);
  unit->branch(3, 2, per_part({0u}), 4);
  const CompactionStats& c = unit->stats().compaction;
  EXPECT_EQ(c.cta_branches, 1u);
  EXPECT_EQ(unit->slots()[2].pc, 3u);
  // CTA 0's second warp does not ask: its CTA waits there, so it joins, and the CTA resolves.
  unit->branch(1, 2, per_part({0x0000ffffu}), 5);
  EXPECT_EQ(c.capri_lookups, 2u);  // slots 0 and 2; slot 3 joined slot 2 as slot 1 joins slot 0
  EXPECT_EQ(c.capri_skipped, 0u);
  EXPECT_EQ(c.cta_branches, 2u);
  EXPECT_EQ(c.divergent, 1u);
  EXPECT_EQ(c.sync_wait_cycles, (5u - 2u) + (4u - 3u));
  // Warp 0's lanes 0-31 and warp 1's 0-15 took it: two warps on the taken path, no saving; training the
  // table with that agrees with its "does not pay".
  EXPECT_EQ(c.capri_outcomes, 2u);
  EXPECT_EQ(c.capri_correct, 1u);
}

TEST(CapriUnit, ACompactionThatSavesAWarpTrainsTheTableSoTheNextCtaWaitsThere) {
  Kernel k(kIfElse, 64);
  RecordingHost host;
  auto unit = make_divergence_unit(params(Compaction::capri), *k.timing, host, {});
  to_branch(*unit, 0, {0, 1}, 1);
  to_branch(*unit, 1, {2, 3}, 1);
  // CTA 0: warp 0's lanes 0-15 and warp 1's 16-31 take it: each path fits one warp.
  unit->branch(0, 2, per_part({0x0000ffffu}), 2);
  unit->branch(1, 2, per_part({0xffff0000u}), 3);
  const CompactionStats& c = unit->stats().compaction;
  EXPECT_EQ(c.compacted, 2u);
  EXPECT_EQ(c.capri_outcomes, 1u);
  EXPECT_EQ(c.capri_correct, 1u);  // a miss predicts adequate, and it was
  EXPECT_EQ(parts_of(unit->slots()[0]), "0:0000ffff 1:ffff0000");
  // CTA 1's first warp finds "pays" in the table and waits, even though its own threads agree.
  unit->branch(2, 2, per_part({0xffffffffu}), 4);
  EXPECT_TRUE(unit->slots()[2].waits);
  EXPECT_EQ(c.capri_skipped, 0u);
  EXPECT_EQ(c.capri_lookups, 2u);  // slots 0 and 2 asked; slot 1 joined slot 0
}

// if (tid % 32 >= 16) { if (tid % 32 < 8) r = 2; else r = 1; r++; } — the outer branch jumps to ret. pcs: 0
// mov, 1 setp, 2 @p bra DONE, 3 setp, 4 @p bra INNER, 5 add, 6 bra JOIN, 7 add (INNER), 8 add (JOIN), 9 ret
// (DONE).
const char* kNested = R"(.version 7.0
.target sm_75
.address_size 64
.visible .entry k()
{
  .reg .pred %p<3>;
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 bra DONE;
  setp.lt.u32 %p2, %r1, 8;
  @%p2 bra INNER;
  add.u32 %r2, %r1, 1;
  bra.uni JOIN;
INNER:
  add.u32 %r2, %r1, 2;
JOIN:
  add.u32 %r3, %r2, 1;
DONE:
  ret;
}
)";

// Issue 28: a warp the compactor formed from part of a CTA warp, whose other threads run on the path in
// another warp, never goes its own way at a split branch, whatever the table says: it would issue that CTA
// warp's threads as two streams (CAPRI issued up to 0.26% more warp instructions than no compaction so).
TEST(CapriUnit, AWarpHoldingPartOfACtaWarpWhoseOtherThreadsAreOnThePathWaitsAtABranchItSplits) {
  Kernel k(kNested, 64);
  RecordingHost host;
  auto unit = make_divergence_unit(params(Compaction::capri), *k.timing, host, {});
  const CompactionStats& c = unit->stats().compaction;
  // CTA 0 teaches the table: the outer branch pays (both paths fit one warp), the inner one does not.
  to_branch(*unit, 0, {0, 1}, 1);
  unit->branch(0, 2, per_part({0x0000ffffu}), 2);
  unit->branch(1, 2, per_part({0xffff0000u}), 3);
  ASSERT_EQ(parts_of(unit->slots()[0]), "0:ffff0000 1:0000ffff");
  ASSERT_EQ(unit->slots()[0].pc, 3u);
  unit->completed(0, 3, 4);
  unit->branch(0, 4, per_part({0u, 0u}), 5);  // a miss: it waits, alone on the path, and nothing splits
  ASSERT_EQ(c.capri_outcomes, 2u);
  ASSERT_EQ(unit->slots()[0].pc, 5u);
  unit->completed(0, 5, 6);
  unit->branch(0, 6, per_part({0xffff0000u, 0x0000ffffu}), 7);
  unit->completed(0, 8, 8);
  for (uint32_t s : {0u, 1u}) {
    ASSERT_EQ(unit->slots()[s].pc, 9u);
    unit->exit(s, 9, per_part({0xffffffffu}), 9);
  }
  // CTA 1: warp 0's lanes 0-23 and warp 1's 16-31 fall through; lanes 16-23 collide, so the compactor forms
  // warp 0's threads with warp 1's lanes 24-31, and warp 1's lanes 16-23 alone.
  to_branch(*unit, 0, {0, 1}, 10);
  unit->branch(0, 2, per_part({0xff000000u}), 11);
  unit->branch(1, 2, per_part({0x0000ffffu}), 12);
  ASSERT_EQ(parts_of(unit->slots()[0]), "0:00ffffff 1:ff000000");
  ASSERT_EQ(parts_of(unit->slots()[1]), "1:00ff0000");
  unit->completed(0, 3, 13);
  unit->completed(1, 3, 13);
  const uint64_t lookups = c.capri_lookups, branches = c.cta_branches;
  // The table says the inner branch does not pay, but the second warp splits there: it waits for its CTA.
  unit->branch(1, 4, per_part({0x000f0000u}), 14);
  EXPECT_TRUE(unit->slots()[1].waits);
  EXPECT_EQ(c.capri_lookups, lookups);
  EXPECT_EQ(c.capri_skipped, 0u);
  EXPECT_EQ(c.capri_free_regions, 0u);
  // The first warp joins it and the CTA resolves the branch as TBC would, compacting both paths.
  unit->branch(0, 4, per_part({0x000000ffu, 0u}), 15);
  EXPECT_EQ(c.cta_branches, branches + 1);
  EXPECT_FALSE(unit->slots()[0].waits);
}

// compaction.capri_clear: the table starts empty at each kernel (`kernel`, the default: a new kernel's PCs
// name other branches) or keeps what earlier kernels of the sequence taught it (`never`).
void trains_not_adequate_then_starts_the_next_kernel(DivergenceUnit& unit) {
  to_branch(unit, 0, {0, 1}, 1);
  unit.branch(0, 2, per_part({0xffffffffu}), 2);  // a miss: waits; the CTA does not split, so "does not pay"
  unit.branch(1, 2, per_part({0xffffffffu}), 3);
  for (uint32_t s : {0u, 1u}) {
    unit.completed(s, 5, 4);
    unit.exit(s, 6, per_part({0xffffffffu}), 5);
  }
  unit.next_kernel();
  to_branch(unit, 0, {0, 1}, 10);
  unit.branch(0, 2, per_part({0x0000ffffu}), 11);
}

TEST(CapriUnit, ByDefaultTheTableForgetsAtTheNextKernelSoItsFirstBranchWaitsAgain) {
  Kernel k(kIfElse, 64);
  RecordingHost host;
  auto unit = make_divergence_unit(params(Compaction::capri), *k.timing, host, {});
  trains_not_adequate_then_starts_the_next_kernel(*unit);
  EXPECT_TRUE(unit->slots()[0].waits);  // a miss again
  const CompactionStats& c = unit->stats().compaction;
  EXPECT_EQ(c.capri_lookups, 1u);  // the statistics restart with the kernel too
  EXPECT_EQ(c.capri_skipped, 0u);
}

TEST(CapriUnit, WithCapriClearNeverTheNextKernelUsesWhatTheLastOneTaught) {
  Kernel k(kIfElse, 64);
  RecordingHost host;
  DivergenceParams p = params(Compaction::capri);
  p.capri_clear_per_kernel = false;
  auto unit = make_divergence_unit(p, *k.timing, host, {});
  trains_not_adequate_then_starts_the_next_kernel(*unit);
  EXPECT_FALSE(unit->slots()[0].waits);  // "does not pay" survived: the warp goes on, on its own stack
  const CompactionStats& c = unit->stats().compaction;
  EXPECT_EQ(c.capri_lookups, 1u);
  EXPECT_EQ(c.capri_skipped, 1u);
  EXPECT_EQ(c.capri_free_regions, 1u);
}

// TBC's rule (Fung and Aamodt, HPCA 2011; docs/slp.md, "When TBC warps wait"): every warp waits for its CTA
// at every conditional branch, whether or not the CTA's threads turn out to split there (only the last
// arrival can tell), and at every reconvergence point; an unconditional branch never synchronizes.
TEST(TbcUnit, EveryConditionalBranchWaitsForTheCtaEvenWhenNoThreadSplitsAndUnconditionalOnesNever) {
  Kernel k(kIfElse, 64);
  RecordingHost host;
  auto unit = make_divergence_unit(params(Compaction::tbc), *k.timing, host, {});
  to_branch(*unit, 0, {0, 1}, 1);
  unit->branch(0, 2, per_part({0u}), 2);  // every thread falls through
  EXPECT_TRUE(unit->slots()[0].waits);
  unit->branch(1, 2, per_part({0u}), 3);
  const CompactionStats& c = unit->stats().compaction;
  EXPECT_EQ(c.cta_branches, 1u);
  EXPECT_EQ(c.divergent, 0u);
  for (uint32_t s : {0u, 1u}) {
    EXPECT_FALSE(unit->slots()[s].waits);
    EXPECT_EQ(unit->slots()[s].pc, 3u);
  }
  unit->completed(0, 3, 4);
  unit->branch(0, 4, per_part({0xffffffffu}), 5);  // bra.uni JOIN: no wait
  EXPECT_FALSE(unit->slots()[0].waits);
  EXPECT_EQ(unit->slots()[0].pc, 6u);
  EXPECT_EQ(c.cta_branches, 1u);
  EXPECT_EQ(c.sync_wait_cycles, 1u);
}

}  // namespace
}  // namespace simtlm::hw
