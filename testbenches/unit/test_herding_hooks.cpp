// hw::Herding (hw/herding/herding_hooks.hpp) called directly with hand-made events on tiny_herd.ptx: the
// majority decision under every tie rule and threshold, data herding's request counts on synthetic address
// patterns, the max_instances budget, observe-only mode and the statistics they leave.
#include <gtest/gtest.h>

#include <bit>

#include "testbenches/unit/herding_fixture.hpp"

namespace simtlm::herding_test {
namespace {

using launch::HerdingSpec;
using launch::parse_herd_site;

HerdingSpec herd_branch(uint32_t pc) {
  HerdingSpec spec;
  spec.branches.sites = {parse_herd_site(std::to_string(pc))};
  return spec;
}

// The statistics entry of the site at `pc` in list `kind` ("branches" or "loads") of the tiny kernel.
nlohmann::json site_stats(hw::Herding& h, const char* kind, uint32_t pc) {
  const stats::Group stats = h.statistics();
  for (const stats::Group& entry : stats.table("kernels").at("tiny_herd").list(kind)) {
    if (entry.integer("pc") == pc) return entry.json();
  }
  return {};
}

class HerdingBranch : public ::testing::Test {
 protected:
  TinyKernel tiny;
};

TEST_F(HerdingBranch, AStrictMajorityTakesAndAMinorityFallsThrough) {
  HerdingUnderTest h(herd_branch(kDataBranchPc));
  // 17 of 32 take: every lane takes; 15 lanes forced.
  ptx::BranchDecision d = h->branch_taken(tiny.branch(kDataBranchPc, kAll, lanes(0, 16)));
  EXPECT_EQ(d.taken, kAll);
  EXPECT_EQ(d.extra_cycles, 0u);
  // 15 of 32 take: nobody does; 15 lanes forced.
  d = h->branch_taken(tiny.branch(kDataBranchPc, kAll, lanes(17, 31)));
  EXPECT_EQ(d.taken, 0u);
  // 1 of 32 take.
  d = h->branch_taken(tiny.branch(kDataBranchPc, kAll, lanes(5, 5)));
  EXPECT_EQ(d.taken, 0u);
  const nlohmann::json s = site_stats(*h, "branches", kDataBranchPc);
  EXPECT_EQ(s["executions"], 3u);
  EXPECT_EQ(s["divergent"], 3u);
  EXPECT_EQ(s["herded"], 3u);
  EXPECT_EQ(s["lanes_forced"], 15u + 15u + 1u);
  EXPECT_EQ(s["herd"], true);
  EXPECT_EQ(s["site"], "PC 11 (PTX line 32, /home/dev/src/tiny_herd.cu:7)");
  EXPECT_EQ(h->instances(), 3u);
  EXPECT_FALSE(h->switched_off());
}

TEST_F(HerdingBranch, OnlyActiveLanesVoteAndOnlyActiveLanesAreSteered) {
  HerdingUnderTest h(herd_branch(kDataBranchPc));
  // 16 active lanes (0..15), 9 of them take; the taken bits of inactive lanes 16..31 do not count.
  ptx::BranchDecision d = h->branch_taken(tiny.branch(kDataBranchPc, lanes(0, 15), lanes(7, 31)));
  EXPECT_EQ(d.taken, lanes(0, 15));
  // 2 of 16 active take although 18 bits are set.
  d = h->branch_taken(tiny.branch(kDataBranchPc, lanes(0, 15), lanes(14, 31)));
  EXPECT_EQ(d.taken, 0u);
  EXPECT_EQ(site_stats(*h, "branches", kDataBranchPc)["lanes_forced"], 7u + 2u);
}

TEST_F(HerdingBranch, AnExactTieFollowsTheTieRule) {
  HerdingUnderTest not_taken(herd_branch(kDataBranchPc));
  EXPECT_EQ(not_taken->branch_taken(tiny.branch(kDataBranchPc, kAll, lanes(16, 31))).taken, 0u);
  EXPECT_EQ(not_taken->branch_taken(tiny.branch(kDataBranchPc, lanes(0, 3), lanes(0, 1))).taken, 0u);
  HerdingSpec spec = herd_branch(kDataBranchPc);
  spec.tie = launch::HerdTie::taken;
  HerdingUnderTest taken(spec);
  EXPECT_EQ(taken->branch_taken(tiny.branch(kDataBranchPc, kAll, lanes(16, 31))).taken, kAll);
  EXPECT_EQ(taken->branch_taken(tiny.branch(kDataBranchPc, lanes(0, 3), lanes(0, 1))).taken, lanes(0, 3));
  // A tie is still a herded divergent branch: 16 + 2 lanes forced either way.
  EXPECT_EQ(site_stats(*not_taken, "branches", kDataBranchPc)["lanes_forced"], 18u);
  EXPECT_EQ(site_stats(*taken, "branches", kDataBranchPc)["lanes_forced"], 18u);
}

TEST_F(HerdingBranch, ANonDefaultThresholdMovesTheDecision) {
  HerdingSpec spec = herd_branch(kDataBranchPc);
  spec.threshold = 0.25;  // 32 lanes: taken when more than 8 take
  HerdingUnderTest h(spec);
  EXPECT_EQ(h->branch_taken(tiny.branch(kDataBranchPc, kAll, lanes(0, 8))).taken, kAll);  // 9
  EXPECT_EQ(h->branch_taken(tiny.branch(kDataBranchPc, kAll, lanes(0, 7))).taken, 0u);    // 8: tie
  EXPECT_EQ(h->branch_taken(tiny.branch(kDataBranchPc, kAll, lanes(0, 6))).taken, 0u);    // 7
  spec.tie = launch::HerdTie::taken;
  HerdingUnderTest tie_taken(spec);
  EXPECT_EQ(tie_taken->branch_taken(tiny.branch(kDataBranchPc, kAll, lanes(0, 7))).taken, kAll);
  EXPECT_EQ(tie_taken->branch_taken(tiny.branch(kDataBranchPc, kAll, lanes(0, 6))).taken, 0u);
  spec.threshold = 0.75;  // 8 active lanes: taken when more than 6 take
  spec.tie = launch::HerdTie::not_taken;
  HerdingUnderTest high(spec);
  EXPECT_EQ(high->branch_taken(tiny.branch(kDataBranchPc, lanes(8, 15), lanes(8, 14))).taken, lanes(8, 15));
  EXPECT_EQ(high->branch_taken(tiny.branch(kDataBranchPc, lanes(8, 15), lanes(8, 13))).taken, 0u);
  EXPECT_EQ(site_stats(*high, "branches", kDataBranchPc)["lanes_forced"], 1u + 6u);
}

TEST_F(HerdingBranch, UniformBranchesAreUntouchedButPayTheDecisionCycles) {
  HerdingSpec spec = herd_branch(kDataBranchPc);
  spec.branch_cycles = 3;
  HerdingUnderTest h(spec);
  ptx::BranchDecision d = h->branch_taken(tiny.branch(kDataBranchPc, kAll, kAll));
  EXPECT_EQ(d.taken, kAll);
  EXPECT_EQ(d.extra_cycles, 3u);
  d = h->branch_taken(tiny.branch(kDataBranchPc, lanes(4, 9), 0));
  EXPECT_EQ(d.taken, 0u);
  EXPECT_EQ(d.extra_cycles, 3u);
  // Taken bits outside the active lanes do not make a uniform branch divergent.
  d = h->branch_taken(tiny.branch(kDataBranchPc, lanes(4, 9), lanes(0, 3) | lanes(10, 31)));
  EXPECT_EQ(d.taken, 0u);
  d = h->branch_taken(tiny.branch(kDataBranchPc, kAll, lanes(0, 19)));
  EXPECT_EQ(d.taken, kAll);
  EXPECT_EQ(d.extra_cycles, 3u);
  const nlohmann::json s = site_stats(*h, "branches", kDataBranchPc);
  EXPECT_EQ(s["executions"], 4u);
  EXPECT_EQ(s["divergent"], 1u);
  EXPECT_EQ(s["herded"], 1u);
  EXPECT_EQ(s["lanes_forced"], 12u);
  EXPECT_EQ(h->instances(), 1u);
}

TEST_F(HerdingBranch, ABranchOutsideThePlanKeepsItsSplitAndCostsNothing) {
  HerdingSpec spec = herd_branch(kDataBranchPc);
  spec.branch_cycles = 3;
  HerdingUnderTest h(spec);
  const ptx::BranchDecision d = h->branch_taken(tiny.branch(kBoundsPc, kAll, lanes(8, 31)));
  EXPECT_EQ(d.taken, lanes(8, 31));
  EXPECT_EQ(d.extra_cycles, 0u);
  const nlohmann::json s = site_stats(*h, "branches", kBoundsPc);
  EXPECT_EQ(s["herd"], false);
  EXPECT_EQ(s["divergent"], 1u);
  EXPECT_EQ(s["herded"], 0u);
  EXPECT_EQ(h->instances(), 0u);
  EXPECT_EQ(h->statistics().group("branches").integer("divergent"), 1u);
}

TEST_F(HerdingBranch, ObserveOnlyCountsWithoutHerding) {
  HerdingUnderTest h(herd_branch(kDataBranchPc));
  h->set_observe_only(true);
  EXPECT_EQ(h->branch_taken(tiny.branch(kDataBranchPc, kAll, lanes(0, 20))).taken, lanes(0, 20));
  const nlohmann::json s = site_stats(*h, "branches", kDataBranchPc);
  EXPECT_EQ(s["divergent"], 1u);
  EXPECT_EQ(s["herded"], 0u);
  EXPECT_EQ(h->instances(), 0u);
}

// The runtime quality monitor: herding stops after exactly max_instances herded executions.
TEST_F(HerdingBranch, HerdingSwitchesOffAtMaxInstances) {
  HerdingSpec spec = herd_branch(kDataBranchPc);
  spec.max_instances = 3;
  spec.branch_cycles = 1;
  HerdingUnderTest h(spec);
  for (int i = 0; i < 6; ++i) {
    // A uniform execution in between never uses up the budget.
    EXPECT_EQ(h->branch_taken(tiny.branch(kDataBranchPc, kAll, kAll)).taken, kAll);
    const ptx::BranchDecision d = h->branch_taken(tiny.branch(kDataBranchPc, kAll, lanes(0, 29)));
    EXPECT_EQ(d.taken, i < 3 ? kAll : lanes(0, 29)) << i;
    EXPECT_EQ(d.extra_cycles, i < 3 ? 1u : 0u) << i;
    EXPECT_EQ(h->instances(), uint64_t(std::min(i + 1, 3))) << i;
    EXPECT_EQ(h->switched_off(), i >= 2) << i;
  }
  const stats::Group doc = h->statistics();
  EXPECT_EQ(doc.integer("instances"), 3u);
  EXPECT_EQ(doc.integer("max_instances"), 3u);
  EXPECT_EQ(doc.get("switched_off"), stats::Value(true));
  const stats::Group& branches = doc.group("branches");
  EXPECT_EQ(branches.integer("executions"), 12u);
  EXPECT_EQ(branches.integer("divergent"), 6u);
  EXPECT_EQ(branches.integer("herded"), 3u);
  EXPECT_EQ(branches.integer("lanes_forced"), 6u);
}

// Data herding: a GlobalMemory with two buffers, loads at the tiny kernel's two global loads.
class HerdingLoad : public ::testing::Test {
 protected:
  HerdingLoad() {
    data = memory.allocate(1 << 16, 256, "data");
    other = memory.allocate(1 << 12, 256, "other");
  }
  static HerdingSpec herd_loads(std::vector<std::string> sites) {
    HerdingSpec spec;
    for (const std::string& s : sites) spec.loads.sites.push_back(parse_herd_site(s));
    return spec;
  }
  // Runs one load of every lane at `address`; returns the rewritten addresses.
  ptx::LaneAddresses herd(hw::Herding& h, ptx::LaneAddresses address, uint32_t pc = kFirstLoadPc,
                          ptx::LaneMask active = kAll, uint32_t* cycles = nullptr) {
    const uint32_t c = h.rewrite_load(tiny.load(pc, active, &memory), address);
    if (cycles) *cycles = c;
    return address;
  }
  TinyKernel tiny;
  ptx::GlobalMemory memory;
  uint64_t data = 0, other = 0;
};

template <class F>
ptx::LaneAddresses addresses(F of_lane) {
  ptx::LaneAddresses a{};
  for (unsigned l = 0; l < 32; ++l) a[l] = of_lane(l);
  return a;
}

TEST_F(HerdingLoad, OneBlockNeedsNoRewrite) {
  HerdingUnderTest h(herd_loads({"7"}));
  const ptx::LaneAddresses in = addresses([&](unsigned l) { return data + 4 * l; });
  EXPECT_EQ(herd(*h, in), in);
  const nlohmann::json s = site_stats(*h, "loads", kFirstLoadPc);
  EXPECT_EQ(s["executions"], 1u);
  EXPECT_EQ(s["herded"], 0u);
  EXPECT_EQ(s["lanes_rewritten"], 0u);
  EXPECT_EQ(s["requests_before"], 1u);
  EXPECT_EQ(s["requests_after"], 1u);
  EXPECT_EQ(s["bytes_before"], 128u);
  EXPECT_EQ(h->instances(), 0u);
}

TEST_F(HerdingLoad, TheMinorityBlockMovesIntoTheMajorityBlockKeepingItsOffsets) {
  HerdingSpec spec = herd_loads({"7"});
  spec.load_cycles = 2;
  HerdingUnderTest h(spec);
  // Lanes 0..19 read block 0 of data, lanes 20..31 block 2 (offsets 80..124 within it).
  const ptx::LaneAddresses in =
      addresses([&](unsigned l) { return l < 20 ? data + 4 * l : data + 256 + 4 * l; });
  uint32_t cycles = 0;
  const ptx::LaneAddresses out = herd(*h, in, kFirstLoadPc, kAll, &cycles);
  EXPECT_EQ(out, addresses([&](unsigned l) { return data + 4 * l; }));
  EXPECT_EQ(cycles, 2u);
  const nlohmann::json s = site_stats(*h, "loads", kFirstLoadPc);
  EXPECT_EQ(s["herded"], 1u);
  EXPECT_EQ(s["lanes_rewritten"], 12u);
  EXPECT_EQ(s["requests_before"], 2u);
  EXPECT_EQ(s["requests_after"], 1u);
  EXPECT_EQ(s["bytes_after"], 128u);
  EXPECT_EQ(h->instances(), 1u);
}

TEST_F(HerdingLoad, ATieGoesToTheLowestActiveLanesBlock) {
  HerdingUnderTest h(herd_loads({"7"}));
  // 16 lanes each in two blocks; lane 0's block is the higher address.
  const ptx::LaneAddresses in =
      addresses([&](unsigned l) { return l % 2 == 0 ? data + 1024 + 4 * l : data + 4 * l; });
  EXPECT_EQ(herd(*h, in), addresses([&](unsigned l) { return data + 1024 + 4 * l; }));
  // Lanes 1..30 active: 15 lanes in each block, and lane 1's block wins.
  EXPECT_EQ(herd(*h, in, kFirstLoadPc, lanes(1, 30)),
            addresses([&](unsigned l) { return l == 0 || l == 31 ? in[l] : data + 4 * l; }));
  const nlohmann::json s = site_stats(*h, "loads", kFirstLoadPc);
  EXPECT_EQ(s["lanes_rewritten"], 16u + 15u);
  EXPECT_EQ(s["requests_before"], 4u);
  EXPECT_EQ(s["requests_after"], 2u);
}

TEST_F(HerdingLoad, AStrideOfOneBlockBecomesOneRequest) {
  HerdingUnderTest h(herd_loads({"7"}));
  const ptx::LaneAddresses in = addresses([&](unsigned l) { return data + 128 * l + 12; });
  EXPECT_EQ(herd(*h, in), addresses([&](unsigned) { return data + 12; }));
  const nlohmann::json s = site_stats(*h, "loads", kFirstLoadPc);
  EXPECT_EQ(s["lanes_rewritten"], 31u);
  EXPECT_EQ(s["requests_before"], 32u);
  EXPECT_EQ(s["requests_after"], 1u);
  EXPECT_EQ(s["bytes_before"], 32u * 128);
}

TEST_F(HerdingLoad, HalfWarpGroupsKeepOneBlockEach) {
  HerdingSpec spec = herd_loads({"7"});
  spec.group_lanes = 16;
  HerdingUnderTest h(spec);
  // Lanes 0..15: 10 in block 0, 6 in block 1. Lanes 16..31: all in block 5 (already one block).
  const ptx::LaneAddresses in = addresses([&](unsigned l) {
    if (l < 10) return data + 4 * l;
    if (l < 16) return data + 128 + 4 * l;
    return data + 5 * 128 + 4 * l - 64;
  });
  const ptx::LaneAddresses out = herd(*h, in);
  EXPECT_EQ(out, addresses([&](unsigned l) { return l < 16 ? data + 4 * l : in[l]; }));
  // Stride 128: each half-warp keeps its own first lane's block (lanes 0 and 16).
  const ptx::LaneAddresses strided = addresses([&](unsigned l) { return data + 128 * l; });
  EXPECT_EQ(herd(*h, strided), addresses([&](unsigned l) { return l < 16 ? data : data + 16 * 128; }));
  const nlohmann::json s = site_stats(*h, "loads", kFirstLoadPc);
  EXPECT_EQ(s["executions"], 2u);
  EXPECT_EQ(s["herded"], 2u);
  EXPECT_EQ(s["lanes_rewritten"], 6u + 30u);
  EXPECT_EQ(s["requests_before"], 3u + 32u);
  EXPECT_EQ(s["requests_after"], 2u + 2u);
  EXPECT_EQ(h->instances(), 2u);
}

TEST_F(HerdingLoad, SixtyFourByteBlocksSplitWhatOneHundredTwentyEightByteBlocksJoin) {
  HerdingSpec spec = herd_loads({"7"});
  spec.block_bytes = 64;
  HerdingUnderTest h(spec);
  const ptx::LaneAddresses in = addresses([&](unsigned l) { return data + 4 * l; });  // 128 aligned bytes
  EXPECT_EQ(herd(*h, in), addresses([&](unsigned l) { return data + 4 * (l % 16); }));
  const nlohmann::json s = site_stats(*h, "loads", kFirstLoadPc);
  EXPECT_EQ(s["lanes_rewritten"], 16u);
  EXPECT_EQ(s["requests_before"], 2u);
  EXPECT_EQ(s["requests_after"], 1u);
  EXPECT_EQ(s["bytes_before"], 128u);
  EXPECT_EQ(s["bytes_after"], 64u);
}

TEST_F(HerdingLoad, BufferHerdingTouchesOnlyTheNamedBuffer) {
  HerdingSpec spec;
  spec.buffers = {"data"};
  HerdingUnderTest h(spec);
  const ptx::LaneAddresses in_other = addresses([&](unsigned l) { return other + 64 * l; });
  EXPECT_EQ(herd(*h, in_other, kSecondLoadPc), in_other);
  const ptx::LaneAddresses in_data = addresses([&](unsigned l) { return data + 64 * l; });
  EXPECT_EQ(herd(*h, in_data, kSecondLoadPc), addresses([&](unsigned l) { return data + 64 * (l % 2); }));
  const nlohmann::json s = site_stats(*h, "loads", kSecondLoadPc);
  EXPECT_EQ(s["executions"], 1u);  // the load of `other` is not data herding's
  EXPECT_EQ(s["requests_before"], 16u);
  EXPECT_EQ(s["lanes_rewritten"], 30u);
}

TEST_F(HerdingLoad, LoadsOutsideThePlanOrOutsideGlobalMemoryAreUntouched) {
  HerdingUnderTest h(herd_loads({"7"}));
  const ptx::LaneAddresses spread = addresses([&](unsigned l) { return data + 128 * l; });
  EXPECT_EQ(herd(*h, spread, kSecondLoadPc), spread);  // not a planned load
  // A generic address outside every allocation (a shared or local window) is not the coalescer's.
  const ptx::LaneAddresses unmapped = addresses([](unsigned l) { return 0x100 + 128 * l; });
  ptx::LaneAddresses a = unmapped;
  EXPECT_EQ(h->rewrite_load(tiny.load(kFirstLoadPc, kAll, &memory, ptx::Space::generic), a), 0u);
  EXPECT_EQ(a, unmapped);
  a = spread;
  EXPECT_EQ(h->rewrite_load(tiny.load(kFirstLoadPc, kAll, &memory, ptx::Space::shared), a), 0u);
  EXPECT_EQ(a, spread);
  EXPECT_EQ(h->statistics().group("loads").integer("executions"), 0u);
  // The generic space does reach global memory, and pays the selector's latency (one round: 2 cycles).
  EXPECT_EQ(h->rewrite_load(tiny.load(kFirstLoadPc, kAll, &memory, ptx::Space::generic), a), 2u);
  EXPECT_EQ(a, addresses([&](unsigned) { return data; }));
}

// Without load_cycles in the spec a herded load costs the selector's latency, ROUNDS + 1 cycles (one round:
// 2), on every execution, herded or not; a given load_cycles, 0 included, replaces it.
TEST_F(HerdingLoad, AnUnsetLoadCyclesChargesTheSelectorsLatency) {
  HerdingUnderTest h(herd_loads({"7"}));
  const ptx::LaneAddresses spread = addresses([&](unsigned l) { return data + 128 * l; });
  const ptx::LaneAddresses one_block = addresses([&](unsigned l) { return data + 4 * l; });
  uint32_t cycles = 0;
  herd(*h, spread, kFirstLoadPc, kAll, &cycles);
  EXPECT_EQ(cycles, 2u);
  h->set_selector_rounds(8);
  herd(*h, spread, kFirstLoadPc, kAll, &cycles);
  EXPECT_EQ(cycles, 9u);
  herd(*h, one_block, kFirstLoadPc, kAll, &cycles);
  EXPECT_EQ(cycles, 9u);
  EXPECT_EQ(h->statistics().group("load_latency").json(),
            (nlohmann::json{{"cycles", 9u}, {"source", "selector"}, {"selector_rounds", 8u}}));
  // The selector compares group_lanes / rounds lanes per cycle: rounds must be a power of two dividing 32.
  EXPECT_THROW(h->set_selector_rounds(3), std::invalid_argument);
  EXPECT_THROW(h->set_selector_rounds(0), std::invalid_argument);
  EXPECT_THROW(h->set_selector_rounds(64), std::invalid_argument);
  EXPECT_EQ(h->selector_rounds(), 8u);
  HerdingSpec free_spec = herd_loads({"7"});
  free_spec.load_cycles = 0;
  HerdingUnderTest free_selection(free_spec);
  free_selection->set_selector_rounds(8);
  herd(*free_selection, spread, kFirstLoadPc, kAll, &cycles);
  EXPECT_EQ(cycles, 0u);
  EXPECT_EQ(free_selection->statistics().group("load_latency").get("source").text(), "launch");
  // Half-warp groups: 32 rounds no longer divide the group.
  HerdingSpec halves = herd_loads({"7"});
  halves.group_lanes = 16;
  HerdingUnderTest half(halves);
  EXPECT_THROW(half->set_selector_rounds(32), std::invalid_argument);
  half->set_selector_rounds(16);
  EXPECT_EQ(half->load_cycles(), 17u);
}

TEST_F(HerdingLoad, BranchesAndLoadsShareTheBudget) {
  HerdingSpec spec = herd_loads({"7"});
  spec.branches.sites = {parse_herd_site("11")};
  spec.max_instances = 2;
  spec.load_cycles = 4;
  HerdingUnderTest h(spec);
  EXPECT_EQ(h->branch_taken(tiny.branch(kDataBranchPc, kAll, lanes(0, 20))).taken, kAll);
  const ptx::LaneAddresses spread = addresses([&](unsigned l) { return data + 128 * l; });
  uint32_t cycles = 0;
  EXPECT_EQ(herd(*h, spread, kFirstLoadPc, kAll, &cycles), addresses([&](unsigned) { return data; }));
  EXPECT_EQ(cycles, 4u);
  EXPECT_TRUE(h->switched_off());
  EXPECT_EQ(herd(*h, spread, kFirstLoadPc, kAll, &cycles), spread);
  EXPECT_EQ(cycles, 0u);
  EXPECT_EQ(h->branch_taken(tiny.branch(kDataBranchPc, kAll, lanes(0, 20))).taken, lanes(0, 20));
  const stats::Group doc = h->statistics();
  EXPECT_EQ(doc.integer("instances"), 2u);
  EXPECT_EQ(doc.group("loads").integer("herded"), 1u);
  EXPECT_EQ(doc.group("loads").integer("requests_before"), 64u);
  EXPECT_EQ(doc.group("loads").integer("requests_after"), 1u + 32u);
  EXPECT_EQ(doc.group("branches").integer("herded"), 1u);
}

}  // namespace
}  // namespace simtlm::herding_test
