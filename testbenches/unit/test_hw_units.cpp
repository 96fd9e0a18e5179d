// The C++ models of the papers' units on their own: the paper examples and properties the RTL twins inherit.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <set>
#include <stdexcept>
#include <vector>

#include "hw/units/lane_permutation.hpp"
#include "hw/units/majority_unit.hpp"
#include "hw/units/popular_block_selector.hpp"
#include "hw/units/priority_encoder_compactor.hpp"

namespace simtlm::hw {
namespace {

// SLP paper Section 4.3, W=8: warps 0..7 use XOR masks 000 111 001 110 010 101 011 100.
TEST(PermutationTable, BalancedMatchesPaperExampleW8) {
  PermutationTable table(8);
  table.set_mode(PermutationMode::kBalanced);
  const std::array<uint32_t, 8> expected = {0b000, 0b111, 0b001, 0b110, 0b010, 0b101, 0b011, 0b100};
  for (uint32_t warp = 0; warp < 8; ++warp)
    EXPECT_EQ(table.xor_mask(warp), expected[warp]) << "warp " << warp;
  // Warp 2 (XOR 001) swaps even and odd lanes: logical lane 0 runs in lane 1.
  EXPECT_EQ(table.home_lane(2, 0), 1u);
  EXPECT_EQ(table.home_lane(1, 0), 7u);
}

// Vertical balance: in any CTA of up to W warps, each physical lane holds each logical lane id at most once,
// and exactly once when the CTA has W warps.
TEST(PermutationTable, BalancedIsVerticallyBalanced) {
  for (uint32_t width : {8u, 16u, 32u, 64u}) {
    PermutationTable table(width);
    table.set_mode(PermutationMode::kBalanced);
    for (uint32_t warps = 1; warps <= width; ++warps) {
      for (uint32_t physical = 0; physical < width; ++physical) {
        std::set<uint32_t> logical_ids;
        for (uint32_t warp = 0; warp < warps; ++warp) logical_ids.insert(physical ^ table.xor_mask(warp));
        ASSERT_EQ(logical_ids.size(), warps)
            << "width " << width << " warps " << warps << " lane " << physical;
      }
    }
  }
}

// Odd warps use masks of at least W/2: they move a half-warp-aligned branch to the other half.
TEST(PermutationTable, BalancedOddWarpsSwapHalves) {
  PermutationTable table(32);
  table.set_mode(PermutationMode::kBalanced);
  for (uint32_t warp = 1; warp < 32; warp += 2) {
    EXPECT_EQ(table.permute_mask(warp, 0x0000ffff), 0xffff0000u) << "warp " << warp;
    EXPECT_EQ(table.xor_mask(warp) ^ table.xor_mask(warp - 1), 31u);
  }
}

TEST(PermutationTable, TableIdentityAndPermutedMask) {
  PermutationTable table(8, 4);
  table.load(3, 0b101);
  EXPECT_EQ(table.xor_mask(3), 0u) << "identity until the table mode is chosen";
  table.set_mode(PermutationMode::kTable);
  EXPECT_EQ(table.xor_mask(3), 0b101u);
  EXPECT_EQ(table.xor_mask(2), 0u) << "entries reset to 0";
  // Logical lane 1 lands on lane 1^5 = 4; lane 7 on 2.
  EXPECT_EQ(table.permute_mask(3, 0b1000'0010), 0b0001'0100u);
  EXPECT_EQ(table.permute_mask(3, 0xffff), 0xffu) << "bits above W ignored";
  EXPECT_THROW(table.load(4, 0), std::out_of_range);
  EXPECT_THROW(table.load(0, 8), std::invalid_argument);
  EXPECT_THROW(PermutationTable(12), std::invalid_argument);
}

TEST(PermutationTable, PermutedMaskIsABijection) {
  PermutationTable table(64);
  table.set_mode(PermutationMode::kBalanced);
  for (uint32_t warp = 0; warp < 64; ++warp) {
    for (uint32_t lane = 0; lane < 64; ++lane) {
      ASSERT_EQ(table.permute_mask(warp, uint64_t{1} << lane), uint64_t{1} << table.home_lane(warp, lane));
    }
  }
}

TEST(MajorityUnit, StrictMajorityAndTies) {
  MajorityUnit ties_not_taken(32);
  MajorityUnit ties_taken(32, MajorityTie::kTaken);
  EXPECT_TRUE(ties_not_taken.vote(0b0111, 0b1111).herd_taken);
  EXPECT_FALSE(ties_not_taken.vote(0b0011, 0b1111).herd_taken);
  EXPECT_TRUE(ties_taken.vote(0b0011, 0b1111).herd_taken);
  EXPECT_FALSE(ties_taken.vote(0b0001, 0b1111).herd_taken);
  // Inactive lanes do not vote: 1 of 1 active lane taken.
  EXPECT_TRUE(ties_not_taken.vote(0xfffffff1, 0x1).herd_taken);
  EXPECT_TRUE(ties_not_taken.vote(0xfffffff1, 0x1).all_taken);
}

TEST(MajorityUnit, UniformityFlags) {
  MajorityUnit unit(8);
  EXPECT_EQ(unit.vote(0x0f, 0x0f),
            (BranchVote{.herd_taken = true, .all_taken = true, .none_taken = false, .uniform = true}));
  EXPECT_EQ(unit.vote(0xf0, 0x0f),
            (BranchVote{.herd_taken = false, .all_taken = false, .none_taken = true, .uniform = true}));
  EXPECT_EQ(unit.vote(0x01, 0x0f),
            (BranchVote{.herd_taken = false, .all_taken = false, .none_taken = false, .uniform = false}));
  EXPECT_EQ(unit.vote(0xff, 0x00), BranchVote{}) << "no active lane: no decision";
}

// SLP paper Figure 2: threads 0, 4 and 8 of three 4-lane warps all sit in lane 0, so compaction cannot merge
// them; the same mask shifted per warp compacts into one warp.
TEST(PriorityEncoderCompactor, AlignedThreadsDoNotCompact) {
  PriorityEncoderCompactor compactor(8);
  const std::vector<uint64_t> aligned = {0b1, 0b1, 0b1};
  const auto schedule = compact_all(compactor, aligned);
  ASSERT_EQ(schedule.size(), 3u);
  for (uint8_t warp = 0; warp < 3; ++warp) {
    EXPECT_EQ(schedule[warp].lane_mask, 0b1u);
    EXPECT_EQ(schedule[warp].source_warp[0], warp);
  }
  const std::vector<uint64_t> staggered = {0b001, 0b010, 0b100};
  const auto merged = compact_all(compactor, staggered);
  ASSERT_EQ(merged.size(), 1u);
  EXPECT_EQ(merged[0].lane_mask, 0b111u);
  EXPECT_EQ(
      (std::array<uint8_t, 3>{merged[0].source_warp[0], merged[0].source_warp[1], merged[0].source_warp[2]}),
      (std::array<uint8_t, 3>{0, 1, 2}));
}

// Lowest warp first per lane; the schedule length is the fullest lane's thread count and every thread
// runs exactly once.
TEST(PriorityEncoderCompactor, LowestWarpFirstAndEveryThreadOnce) {
  PriorityEncoderCompactor compactor(8);
  const std::vector<uint64_t> cta = {0b0011, 0b0110, 0b1100, 0b0001};
  const auto schedule = compact_all(compactor, cta);
  ASSERT_EQ(schedule.size(), 2u);  // lanes 0, 1 and 2 hold two threads each
  EXPECT_EQ(schedule[0].lane_mask, 0b1111u);
  EXPECT_EQ(schedule[0].source_warp[0], 0);
  EXPECT_EQ(schedule[0].source_warp[1], 0);
  EXPECT_EQ(schedule[0].source_warp[2], 1);
  EXPECT_EQ(schedule[0].source_warp[3], 2);
  std::vector<uint64_t> seen(cta.size(), 0);
  for (const CompactedWarp& warp : schedule) {
    for (uint32_t lane = 0; lane < 8; ++lane) {
      if ((warp.lane_mask >> lane) & 1) {
        const uint64_t bit = uint64_t{1} << lane;
        EXPECT_FALSE(seen[warp.source_warp[lane]] & bit) << "thread ran twice";
        seen[warp.source_warp[lane]] |= bit;
      }
    }
  }
  EXPECT_EQ(seen, cta);
  EXPECT_THROW(compactor.load(std::vector<uint64_t>(17, 1)), std::invalid_argument);
}

TEST(PopularBlockSelector, MostPopularBlockAndRewrite) {
  PopularBlockSelector selector(8);
  // 128-byte lines (shift 7): four active lanes in block 2, two in block 5, one in block 0x12; lane 7
  // inactive.
  const std::vector<uint64_t> address = {0x100, 0x284, 0x17c, 0x108, 0x2ff, 0x140, 0x900, 0x104};
  const HerdedLoad herded = selector.select(address, 0x7f, 7);
  EXPECT_EQ(herded.block, 2u);
  EXPECT_EQ(herded.count, 4u);
  EXPECT_EQ(herded.address[1], 0x104u) << "offset 0x04 kept, block replaced";
  EXPECT_EQ(herded.address[4], 0x17fu);
  EXPECT_EQ(herded.address[6], 0x100u);
  EXPECT_EQ(herded.address[7], 0x104u) << "inactive lane untouched";
}

TEST(PopularBlockSelector, TieGoesToLowestActiveLanesBlock) {
  PopularBlockSelector selector(8);
  const std::vector<uint64_t> address = {0x900, 0x200, 0x900, 0x200, 0x300, 0x300, 0x0, 0x0};
  EXPECT_EQ(selector.select(address, 0x3f, 8).block, 9u);
  EXPECT_EQ(selector.select(address, 0x3e, 8).block, 2u) << "lane 0 inactive: lane 1's block";
  const HerdedLoad none = selector.select(address, 0, 8);
  EXPECT_EQ(none.count, 0u);
  EXPECT_EQ(none.block, 0u);
  EXPECT_EQ(none.address[0], 0x900u);
}

TEST(PopularBlockSelector, ThirtyTwoBitAddressesWrap) {
  PopularBlockSelector selector(8, 32);
  std::vector<uint64_t> address(8, 0x1'0000'0040);  // bit 32 is outside a 32-bit address
  const HerdedLoad herded = selector.select(address, 0xff, 4);
  EXPECT_EQ(herded.block, 0x4u);
  EXPECT_EQ(herded.address[0], 0x40u);
  EXPECT_THROW(selector.select(address, 0xff, 32), std::invalid_argument);
}

}  // namespace
}  // namespace simtlm::hw
