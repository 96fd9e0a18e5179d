// The divergence units of hw/divergence/ driven as the SM drives them, without SystemC: a recording SlotHost
// stands for the SM and the test hands each unit the outcomes the functional model would report.
#include <gtest/gtest.h>

#include <bit>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "hw/divergence/divergence_unit.hpp"
#include "hw/divergence/warp_stacks.hpp"
#include "models/ptx/parser.hpp"
#include "models/ptx/reconvergence.hpp"
#include "testbenches/unit/divergence_fixture.hpp"

namespace simtlm::hw {
namespace {

using namespace simtlm::hw::testing;  // NOLINT(google-build-using-namespace): the fixture is this file's

TEST(WarpStacksUnit, IfElseRunsTheTakenPathFirstThenReconvergesAndExits) {
  Kernel k(kIfElse, 32);
  RecordingHost host;
  auto unit = make_divergence_unit(params(Compaction::none), *k.timing, host, {});
  unit->launch_cta(0, 0, {2}, {0xffffffffu}, 10);
  EXPECT_EQ(host.events, (std::vector<std::string>{"start 2 @10 branch"}));
  const IssueSlot& s = unit->slots()[2];
  ASSERT_TRUE(s.live);
  unit->executed(2, 0, 0, 10);
  unit->completed(2, 0, 10);
  unit->executed(2, 1, 0, 11);
  unit->completed(2, 1, 11);
  EXPECT_EQ(s.pc, 2u);
  unit->branch(2, 2, per_part({0x0000ffffu}), 12);
  EXPECT_EQ(s.pc, 5u);  // the taken path first
  EXPECT_EQ(unit->view(2).lanes, 0x0000ffffu);
  EXPECT_EQ(unit->view(2).depth, 3u);  // waiting at the join, the fall-through path, the running taken path
  unit->executed(2, 5, 0, 13);
  EXPECT_EQ(s.pc, 3u);  // the taken path reached the join: the fall-through path runs
  EXPECT_EQ(unit->view(2).lanes, 0xffff0000u);
  unit->executed(2, 3, 0, 14);
  unit->branch(2, 4, per_part({0xffff0000u}), 15);  // bra.uni: every lane takes it
  EXPECT_EQ(s.pc, 6u);
  EXPECT_EQ(unit->view(2).lanes, 0xffffffffu);
  EXPECT_EQ(unit->view(2).depth, 1u);
  host.events.clear();
  unit->exit(2, 6, per_part({0xffffffffu}), 16);
  EXPECT_FALSE(s.live);
  EXPECT_EQ(host.events, (std::vector<std::string>{"exited cta 0 32", "stop 2", "done cta 0 warp 0"}));
  EXPECT_EQ(unit->stats().stack.pushes, 2u);
  EXPECT_EQ(unit->stats().stack.divergent_branches, 1u);
}

TEST(WarpStacksUnit, SpillsBeyondTheOnChipEntriesAndWaitsForItsFillsUnlessAPresetIsMeasured) {
  for (const bool measured : {false, true}) {
    Kernel k(kIfElse, 32);
    RecordingHost host;
    DivergenceParams p = params(Compaction::none);
    p.stack.onchip_entries = 1;
    p.stack.chunk_entries = 1;
    p.stack_timing_measured = measured;
    auto unit = make_divergence_unit(p, *k.timing, host, {});
    unit->launch_cta(0, 0, {0}, {0xffffffffu}, 0);
    host.events.clear();
    unit->branch(0, 2, per_part({0x0000ffffu}), 1);  // two deferred entries, one on chip: one spill
    EXPECT_EQ(host.events, (std::vector<std::string>{"spill 0 pc 2 8B"}));
    host.events.clear();
    unit->executed(0, 5, 0, 2);  // the taken path pops to the fall-through entry, still on chip
    EXPECT_TRUE(host.events.empty());
    EXPECT_EQ(unit->slots()[0].pc, 3u);
    unit->executed(0, 3, 0, 3);
    unit->branch(0, 4, per_part({0xffff0000u}), 4);  // at the join the spilled waiting entry comes back
    EXPECT_EQ(host.events, (std::vector<std::string>{measured ? "fill 0 pc 4 8B" : "fill 0 pc 4 8B wait"}));
    EXPECT_EQ(unit->view(0).lanes, 0xffffffffu);
  }
}

TEST(BlockCompactionUnit, TwoHalfWarpsOfEachPathMergeIntoOneWarpAfterTheCtaWaits) {
  Kernel k(kIfElse, 64);
  RecordingHost host;
  auto unit = make_divergence_unit(params(Compaction::tbc), *k.timing, host, {});
  unit->launch_cta(1, 7, {0, 1}, {0xffffffffu, 0xffffffffu}, 0);
  EXPECT_EQ(host.events, (std::vector<std::string>{"start 0 @0 branch", "start 1 @0 branch"}));
  for (uint32_t s : {0u, 1u}) {
    unit->executed(s, 0, 0, 1);
    unit->completed(s, 0, 1);
    unit->executed(s, 1, 0, 2);
    unit->completed(s, 1, 2);
  }
  host.events.clear();
  unit->branch(0, 2, per_part({0x0000ffffu}), 3);  // warp 0: lanes 0-15 take it
  EXPECT_TRUE(unit->slots()[0].waits);
  EXPECT_TRUE(host.events.empty());
  unit->branch(1, 2, per_part({0xffff0000u}), 4);  // warp 1: lanes 16-31 take it
  // Both paths compact from two warps to one: the taken path runs first, in one slot, each thread in its
  // lane.
  EXPECT_EQ(host.events, (std::vector<std::string>{"stop 0", "stop 1", "start 0 @5 compaction"}));
  const IssueSlot& s = unit->slots()[0];
  EXPECT_EQ(s.pc, 5u);
  EXPECT_EQ(parts_of(s), "0:0000ffff 1:ffff0000");
  EXPECT_EQ(unit->view(0).lanes, 0xffffffffu);
  EXPECT_EQ(unit->taken_lanes(0, per_part({0x0000000fu, 0x00010000u})), 0x0001000fu);
  EXPECT_FALSE(unit->slots()[1].live);
  EXPECT_EQ(unit->view(0).depth, 3u);
  const CompactionStats& c = unit->stats().compaction;
  EXPECT_EQ(c.cta_branches, 1u);
  EXPECT_EQ(c.divergent, 1u);
  EXPECT_EQ(c.paths, 2u);
  EXPECT_EQ(c.compacted, 2u);
  EXPECT_EQ(c.warps_no_tbc, 4u);
  EXPECT_EQ(c.warps_formed, 2u);
  // The taken path reaches the join: the fall-through path is formed, again as one warp.
  host.events.clear();
  unit->executed(0, 5, 0, 6);
  unit->completed(0, 5, 6);
  EXPECT_EQ(host.events, (std::vector<std::string>{"stop 0", "start 0 @7 compaction"}));
  EXPECT_EQ(s.pc, 3u);
  EXPECT_EQ(parts_of(s), "0:ffff0000 1:0000ffff");
  unit->executed(0, 3, 0, 7);
  unit->completed(0, 3, 7);
  unit->branch(0, 4, per_part({0xffff0000u, 0x0000ffffu}), 8);
  // At the join both CTA warps are whole again.
  EXPECT_EQ(s.pc, 6u);
  EXPECT_EQ(parts_of(s), "0:ffffffff");
  EXPECT_EQ(parts_of(unit->slots()[1]), "1:ffffffff");
  host.events.clear();
  unit->exit(0, 6, per_part({0xffffffffu}), 9);
  unit->exit(1, 6, per_part({0xffffffffu}), 9);
  EXPECT_EQ(host.events, (std::vector<std::string>{"exited cta 1 32", "stop 0", "exited cta 1 32", "stop 1",
                                                   "done cta 1 warp 0", "done cta 1 warp 1"}));
}

TEST(BlockCompactionUnit, IdealPacksThreadsThatShareHomeLanesWhereTbcCannot) {
  for (const Compaction mechanism : {Compaction::tbc, Compaction::ideal}) {
    Kernel k(kIfElse, 64);
    RecordingHost host;
    auto unit = make_divergence_unit(params(mechanism), *k.timing, host, {});
    unit->launch_cta(0, 0, {0, 1}, {0xffffffffu, 0xffffffffu}, 0);
    for (uint32_t s : {0u, 1u}) {
      unit->completed(s, 0, 1);
      unit->completed(s, 1, 2);
      unit->branch(s, 2, per_part({0x0000ffffu}), 3);  // lanes 0-15 of both warps take it
    }
    const CompactionStats& c = unit->stats().compaction;
    EXPECT_EQ(c.warps_formed, mechanism == Compaction::ideal ? 2u : 4u) << compaction_name(mechanism);
    EXPECT_EQ(c.warps_ideal, 2u);
    EXPECT_EQ(parts_of(unit->slots()[0]),
              mechanism == Compaction::ideal ? "0:0000ffff 1:0000ffff" : "0:0000ffff");
  }
}

TEST(CapriUnit, AUniformLoopBranchWaitsOnceThenSkipsWhenCompactionNeverPays) {
  Kernel k(kLoop, 64);
  RecordingHost host;
  auto unit = make_divergence_unit(params(Compaction::capri), *k.timing, host, {});
  unit->launch_cta(0, 0, {0, 1}, {0xffffffffu, 0xffffffffu}, 0);
  uint64_t now = 1;
  auto iterate = [&](uint32_t s) {
    unit->completed(s, 1, now++);
    unit->completed(s, 2, now++);
    unit->branch(s, 3, per_part({0xffffffffu}), now++);
  };
  for (uint32_t s : {0u, 1u}) unit->completed(s, 0, now++);
  iterate(0);
  EXPECT_TRUE(unit->slots()[0].waits);  // the counter starts at "compaction pays": the warp waits
  iterate(1);
  EXPECT_EQ(unit->stats().compaction.cta_branches, 1u);
  EXPECT_EQ(unit->slots()[0].pc, 1u);
  // The CTA did not diverge, so the counter dropped: from now on both warps go on without waiting.
  iterate(0);
  EXPECT_FALSE(unit->slots()[0].waits);
  EXPECT_EQ(unit->slots()[0].pc, 1u);
  iterate(1);
  iterate(0);
  EXPECT_EQ(unit->stats().compaction.capri_skipped, 3u);
  EXPECT_EQ(unit->stats().compaction.cta_branches, 1u);
}

TEST(BlockCompactionUnit, TheCompactorEmitsOneWarpPerFormationStep) {
  Kernel k(kIfElse, 64);
  RecordingHost host;
  DivergenceParams p = params(Compaction::tbc);
  p.formation_cycles = 3;
  auto unit = make_divergence_unit(p, *k.timing, host, {});
  unit->launch_cta(0, 0, {0, 1}, {0xffffffffu, 0xffffffffu}, 0);
  for (uint32_t s : {0u, 1u}) {
    unit->completed(s, 0, 1);
    unit->completed(s, 1, 2);
  }
  unit->branch(0, 2, per_part({0x0000ffffu}), 3);
  host.events.clear();
  unit->branch(1, 2, per_part({0x0000ffffu}), 10);  // lanes 0-15 of both: two warps in the same lanes
  EXPECT_EQ(host.events, (std::vector<std::string>{"stop 0", "stop 1", "start 0 @11 compaction",
                                                   "start 1 @14 compaction"}));
  // A new kernel of a launch sequence starts its counts afresh.
  EXPECT_EQ(unit->stats().compaction.formations, 1u);
  unit->next_kernel();
  EXPECT_EQ(unit->stats().compaction.formations, 0u);
  EXPECT_EQ(unit->stats().compaction.cta_branches, 0u);
}

// A compactor that fails as an RTL twin does under --rtl-check.
class FailingCompactor final : public WarpCompaction {
 public:
  void load(std::span<const uint64_t>) override { throw std::runtime_error("RTL mismatch in the compactor"); }
  bool done() override { return true; }
  CompactedWarp next() override { return {}; }
};

TEST(BlockCompactionUnit, AFailingCompactorStopsTheRunWithWhereItFormed) {
  Kernel k(kIfElse, 64);
  RecordingHost host;
  FailingCompactor compactor;
  auto unit =
      make_divergence_unit(params(Compaction::tbc), *k.timing, host, CompactionUnits{nullptr, &compactor});
  unit->launch_cta(0, 42, {0, 1}, {0xffffffffu, 0xffffffffu}, 0);
  for (uint32_t s : {0u, 1u}) {
    unit->completed(s, 0, 1);
    unit->completed(s, 1, 2);
  }
  unit->branch(0, 2, per_part({0x0000ffffu}), 3);
  host.events.clear();
  // The divergent outcome is counted with the compactor too, so it fails there first; no warp starts.
  EXPECT_THROW(unit->branch(1, 2, per_part({0xffff0000u}), 4), std::runtime_error);
  EXPECT_TRUE(host.events.empty());
}

// The last warp_done may launch the grid's next CTA into the same CTA index and slots at once (the SM's
// dispatcher does): the unit must have finished with the old CTA by then.
class RelaunchingHost final : public SlotHost {
 public:
  DivergenceUnit* unit = nullptr;
  std::vector<std::string> events;
  uint32_t relaunches = 0;
  void start_slot(uint32_t s, uint64_t, Stall) override { events.push_back("start " + std::to_string(s)); }
  void stop_slot(uint32_t s) override { events.push_back("stop " + std::to_string(s)); }
  void delay_slot(uint32_t, uint64_t, Stall) override {}
  void stack_request(uint32_t, uint32_t, const MemRequest&, bool) override {}
  void threads_exited(uint32_t, uint64_t) override {}
  bool at_barrier(uint32_t) const override { return false; }
  void warp_done(uint32_t cta, uint32_t warp) override {
    events.push_back("done " + std::to_string(warp));
    if (warp + 1 == 2 && relaunches++ == 0) unit->launch_cta(cta, 1, {0, 1}, {0x0000000fu, 0x000000f0u}, 5);
  }
  void check_deadlock(uint32_t) override {}
  void unit_failed(const std::string&) override {}
  uint64_t tasks_left(uint32_t) const override { return 0; }
  ptx::LaneMask give_tasks(uint32_t, uint32_t, ptx::LaneMask) override { return 0; }
};

TEST(DivergenceUnits, TheNextCtaMayBeLaunchedFromTheLastWarpDone) {
  for (const Compaction mechanism : {Compaction::none, Compaction::tbc, Compaction::capri}) {
    Kernel k(kIfElse, 64);
    RelaunchingHost host;
    auto unit = make_divergence_unit(params(mechanism), *k.timing, host, {});
    host.unit = unit.get();
    unit->launch_cta(0, 0, {0, 1}, {0xffffffffu, 0xffffffffu}, 0);
    for (uint32_t s : {0u, 1u}) {
      unit->exit(s, 6, per_part({0xffffffffu}), 4);  // as if both reached the ret
    }
    EXPECT_EQ(host.relaunches, 1u) << compaction_name(mechanism);
    for (uint32_t s : {0u, 1u}) {
      EXPECT_TRUE(unit->slots()[s].live) << compaction_name(mechanism);
      EXPECT_EQ(unit->slots()[s].pc, 0u) << compaction_name(mechanism);
    }
    EXPECT_EQ(parts_of(unit->slots()[1]), "1:000000f0") << compaction_name(mechanism);
  }
}

TEST(DivergenceUnits, CompactionRefusesDeviceCallsWithTheirPlace) {
  Kernel k(ptx::load_ptx_file(std::string(SIMTLM_SOURCE_DIR) + "/testbenches/ptx/device_calls_O0.ptx"), 32,
           "_Z12device_callsPiPfS_S_S_");
  RecordingHost host;
  EXPECT_EQ(make_divergence_unit(params(Compaction::none), *k.timing, host, {})->refusal(), "");
  for (const Compaction mechanism : {Compaction::tbc, Compaction::ideal, Compaction::capri}) {
    const std::string refusal = make_divergence_unit(params(mechanism), *k.timing, host, {})->refusal();
    EXPECT_EQ(refusal.rfind("kernel _Z12device_callsPiPfS_S_S_ calls .func ", 0), 0u) << refusal;
    EXPECT_NE(refusal.find(" (PTX line "), std::string::npos) << refusal;
    EXPECT_NE(refusal.find("device_calls.cu:"), std::string::npos) << refusal;
    EXPECT_NE(refusal.find("divergence.unit: warp_stacks"), std::string::npos) << refusal;
  }
}

TEST(DivergenceUnits, CompactionRefusesDeviceCallsAndTheFactoryBuildsEachMechanism) {
  Kernel k(kIfElse, 32);
  RecordingHost host;
  for (const Compaction mechanism :
       {Compaction::none, Compaction::tbc, Compaction::ideal, Compaction::capri}) {
    auto unit = make_divergence_unit(params(mechanism), *k.timing, host, {});
    EXPECT_EQ(unit->slots().size(), 4u);
    EXPECT_EQ(unit->slots_share_contexts(), mechanism != Compaction::none);
    EXPECT_EQ(unit->refusal(), "");  // no calls in this kernel
  }
  EXPECT_EQ(parse_compaction("capri"), Compaction::capri);
  EXPECT_EQ(parse_compaction("CAPRI"), std::nullopt);
  EXPECT_EQ(compaction_name(Compaction::ideal), "ideal");
}

TEST(PostDominatorRule, TheRunningEntryWaitsUnlessItReconvergesThereAndPathsAtTheJoinAreNotPushed) {
  // Arguments: fall-through pc, target, reconvergence pc, the running entry's reconvergence pc.
  // if-else inside a region joining elsewhere: everything pushed.
  ptx::DivergentPaths p = ptx::divergent_paths(3, 5, 6, 20);
  EXPECT_TRUE(p.keep_waiting && p.push_not_taken && p.push_taken);
  EXPECT_EQ(p.reconvergence_pc, 6u);
  // if without else: the taken path starts at the join.
  p = ptx::divergent_paths(3, 6, 6, 20);
  EXPECT_TRUE(p.keep_waiting && p.push_not_taken && !p.push_taken);
  // a loop exit whose running entry already reconverges at the loop's join: the entry is replaced.
  p = ptx::divergent_paths(5, 1, 5, 5);  // the exit at pc 4 falls through to the join at 5
  EXPECT_FALSE(p.keep_waiting);
  EXPECT_FALSE(p.push_not_taken);
  EXPECT_TRUE(p.push_taken);
}

}  // namespace
}  // namespace simtlm::hw
