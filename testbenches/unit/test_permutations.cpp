// The named SIMD lane permutations (hw/units/permutations.hpp): names, each definition, Balanced's vertical
// balance (SLP paper, Section 4.3) and loading the XOR ones into the permutation table.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "hw/units/lane_permutation.hpp"
#include "hw/units/permutations.hpp"

using namespace simtlm::hw;

namespace {

// Home lanes of logical lanes 0..W-1 of `warp`, the rows of the paper's Figure 9 (a).
std::vector<uint32_t> home_row(const LanePermutationMap& map, uint32_t warp) {
  std::vector<uint32_t> row;
  for (uint32_t lane = 0; lane < map.width(); ++lane) row.push_back(map.home_lane(warp, lane));
  return row;
}

// True when, over CTA warps 0..num_warps-1, no physical lane holds the same logical lane id twice.
bool vertically_balanced(const LanePermutationMap& map, uint32_t num_warps) {
  for (uint32_t home = 0; home < map.width(); ++home) {
    std::set<uint32_t> logical_ids;
    for (uint32_t warp = 0; warp < num_warps; ++warp) {
      if (!logical_ids.insert(map.logical_lane(warp, home)).second) return false;
    }
  }
  return true;
}

TEST(PermutationNames, EveryNameParsesBackToItsPermutation) {
  const std::vector<std::string> names = {"identity", "balanced", "odd_even", "xor_half",    "random",
                                          "wid",      "rev_wid",  "flip_odd", "rotate_odd_1"};
  ASSERT_EQ(names.size(), std::size(kAllNamedPermutations));
  for (size_t i = 0; i < names.size(); ++i) {
    const auto parsed = parse_permutation(names[i]);
    ASSERT_TRUE(parsed.has_value()) << names[i];
    EXPECT_EQ(*parsed, kAllNamedPermutations[i]) << names[i];
    EXPECT_EQ(permutation_name(*parsed), names[i]);
  }
}

TEST(PermutationNames, UnknownOrDifferentlySpelledNamesAreRejected) {
  EXPECT_FALSE(parse_permutation("Balanced").has_value());
  EXPECT_FALSE(parse_permutation("rotate_odd").has_value());
  EXPECT_FALSE(parse_permutation("").has_value());
  EXPECT_FALSE(parse_permutation("rev-wid").has_value());
}

TEST(PermutationDefinitions, OnlyRotateOdd1IsNotAnXor) {
  for (NamedPermutation p : kAllNamedPermutations) {
    EXPECT_EQ(is_xor_permutation(p), p != NamedPermutation::kRotateOdd1) << permutation_name(p);
  }
  const LanePermutationMap rotate(NamedPermutation::kRotateOdd1, 8);
  EXPECT_THROW(rotate.xor_mask(1), std::logic_error);
  EXPECT_THROW(rotate.xor_table(4), std::logic_error);
}

TEST(PermutationDefinitions, BalancedMatchesFigure9a) {
  const LanePermutationMap balanced(NamedPermutation::kBalanced, 8);
  EXPECT_EQ(balanced.xor_table(8),
            (std::vector<uint32_t>{0b000, 0b111, 0b001, 0b110, 0b010, 0b101, 0b011, 0b100}));
  EXPECT_EQ(home_row(balanced, 0), (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(home_row(balanced, 1), (std::vector<uint32_t>{7, 6, 5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(home_row(balanced, 3), (std::vector<uint32_t>{6, 7, 4, 5, 2, 3, 0, 1}));
  EXPECT_EQ(home_row(balanced, 5), (std::vector<uint32_t>{5, 4, 7, 6, 1, 0, 3, 2}));
  EXPECT_EQ(home_row(balanced, 7), (std::vector<uint32_t>{4, 5, 6, 7, 0, 1, 2, 3}));
  // Equation 2 within log2(W) bits, as the existing unit and RTL compute it: warps 8..15 take the even masks
  // 4..7 and their inverses and the table repeats from warp 2W (docs/slp.md on Figure 9 (a)'s "repeat
  // above").
  EXPECT_EQ(balanced.xor_mask(16), 0u);
  EXPECT_EQ(balanced.xor_mask(17), 7u);
  EXPECT_EQ(balanced.xor_mask(8), 4u);  // Even warp 8: 8/2 = 4.
  EXPECT_EQ(balanced.xor_mask(9), 3u);  // Its odd partner: ~4 within 3 bits.
}

TEST(PermutationDefinitions, BalancedPairsAreComplementary) {
  for (uint32_t width : {4u, 8u, 32u, 64u}) {
    const LanePermutationMap balanced(NamedPermutation::kBalanced, width);
    for (uint32_t even = 0; even < 2 * width; even += 2) {
      EXPECT_EQ(balanced.xor_mask(even) ^ balanced.xor_mask(even + 1), width - 1) << width << " " << even;
    }
    // Within the first W warps every odd warp swaps the half-warps: its logical lane 0 lands in the second
    // half.
    for (uint32_t odd = 1; odd < width; odd += 2) EXPECT_GE(balanced.home_lane(odd, 0), width / 2) << width;
  }
}

TEST(PermutationDefinitions, OddWarpOnlyPermutations) {
  const LanePermutationMap odd_even(NamedPermutation::kOddEven, 32);
  const LanePermutationMap xor_half(NamedPermutation::kXorHalf, 32);
  const LanePermutationMap flip_odd(NamedPermutation::kFlipOdd, 32);
  const LanePermutationMap rotate(NamedPermutation::kRotateOdd1, 32);
  for (uint32_t even = 0; even < 64; even += 2) {
    for (uint32_t lane = 0; lane < 32; ++lane) {
      EXPECT_EQ(odd_even.home_lane(even, lane), lane);
      EXPECT_EQ(xor_half.home_lane(even, lane), lane);
      EXPECT_EQ(flip_odd.home_lane(even, lane), lane);
      EXPECT_EQ(rotate.home_lane(even, lane), lane);
      EXPECT_EQ(odd_even.home_lane(even + 1, lane), lane ^ 1);
      EXPECT_EQ(xor_half.home_lane(even + 1, lane), (lane + 16) % 32);
      EXPECT_EQ(flip_odd.home_lane(even + 1, lane), 31 - lane);
      EXPECT_EQ(rotate.home_lane(even + 1, lane), (lane + 1) % 32);
    }
  }
  EXPECT_EQ(odd_even.xor_mask(3), 1u);
  EXPECT_EQ(xor_half.xor_mask(3), 16u);
  EXPECT_EQ(flip_odd.xor_mask(3), 31u);
}

TEST(PermutationDefinitions, WidAndReversedWid) {
  const LanePermutationMap wid(NamedPermutation::kWid, 8);
  const LanePermutationMap rev_wid(NamedPermutation::kRevWid, 8);
  EXPECT_EQ(wid.xor_table(10), (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7, 0, 1}));
  // Bit reversal within 3 bits: 001 -> 100, 011 -> 110, ...; the warp id wraps modulo W first.
  EXPECT_EQ(rev_wid.xor_table(10), (std::vector<uint32_t>{0, 4, 2, 6, 1, 5, 3, 7, 0, 4}));
  const LanePermutationMap rev_wid32(NamedPermutation::kRevWid, 32);
  EXPECT_EQ(rev_wid32.xor_mask(1), 16u);
  EXPECT_EQ(rev_wid32.xor_mask(6), 12u);  // 00110 -> 01100
  EXPECT_EQ(rev_wid32.xor_mask(33), 16u);
}

TEST(PermutationDefinitions, RandomIsSeededAndIndependentOfTableSize) {
  const LanePermutationMap a(NamedPermutation::kRandom, 32, 7);
  const LanePermutationMap same_seed(NamedPermutation::kRandom, 32, 7);
  const LanePermutationMap other_seed(NamedPermutation::kRandom, 32, 8);
  const std::vector<uint32_t> table = a.xor_table(64);
  EXPECT_EQ(table, same_seed.xor_table(64));
  EXPECT_NE(table, other_seed.xor_table(64));
  // A prefix of a longer table is the shorter table: masks depend on (seed, warp) only.
  EXPECT_EQ(std::vector<uint32_t>(table.begin(), table.begin() + 8), a.xor_table(8));
  std::set<uint32_t> distinct(table.begin(), table.end());
  for (uint32_t mask : table) EXPECT_LT(mask, 32u);
  EXPECT_GT(distinct.size(), 16u);  // 64 uniform draws from 32 values: far more than half of them appear.
}

TEST(PermutationDefinitions, LogicalLaneInvertsHomeLaneForEveryPermutation) {
  for (NamedPermutation p : kAllNamedPermutations) {
    for (uint32_t width : {2u, 4u, 8u, 64u}) {
      const LanePermutationMap map(p, width, 3);
      for (uint32_t warp = 0; warp < 3 * width; ++warp) {
        std::set<uint32_t> homes;
        for (uint32_t lane = 0; lane < width; ++lane) {
          const uint32_t home = map.home_lane(warp, lane);
          EXPECT_LT(home, width);
          homes.insert(home);
          EXPECT_EQ(map.logical_lane(warp, home), lane)
              << permutation_name(p) << " W" << width << " w" << warp;
        }
        EXPECT_EQ(homes.size(), width) << permutation_name(p) << " W" << width << " w" << warp;
      }
    }
  }
}

TEST(PermutationDefinitions, RejectsBadWidthsLanesAndWarps) {
  EXPECT_THROW(LanePermutationMap(NamedPermutation::kBalanced, 12), std::invalid_argument);
  EXPECT_THROW(LanePermutationMap(NamedPermutation::kBalanced, 1), std::invalid_argument);
  EXPECT_THROW(LanePermutationMap(NamedPermutation::kBalanced, 128), std::invalid_argument);
  const LanePermutationMap map(NamedPermutation::kWid, 8);
  EXPECT_THROW(map.home_lane(0, 8), std::out_of_range);
  EXPECT_THROW(map.home_lane(LanePermutationMap::kMaxWarps, 0), std::out_of_range);
}

// Section 4.3: for any CTA of at most W warps, each physical lane holds each logical lane id at most once,
// and exactly once when the CTA has W warps.
TEST(PermutationBalanced, VerticalBalanceForEveryCtaOfAtMostWWarps) {
  for (uint32_t width : {2u, 4u, 8u, 16u, 32u, 64u}) {
    const LanePermutationMap balanced(NamedPermutation::kBalanced, width);
    for (uint32_t num_warps = 1; num_warps <= width; ++num_warps) {
      EXPECT_TRUE(vertically_balanced(balanced, num_warps)) << "W" << width << " warps " << num_warps;
    }
    for (uint32_t home = 0; home < width; ++home) {
      std::set<uint32_t> logical_ids;
      for (uint32_t warp = 0; warp < width; ++warp) logical_ids.insert(balanced.logical_lane(warp, home));
      EXPECT_EQ(logical_ids.size(), width) << "W" << width << " lane " << home;
    }
  }
}

// Not unique to Balanced under this project's XOR definitions (docs/slp.md): WID and Rev_WID give the first W
// warps W distinct masks, and a random table does not.
TEST(PermutationBalanced, WidAndRevWidAreVerticallyBalancedTooRandomIsNot) {
  for (uint32_t width : {4u, 8u, 32u}) {
    EXPECT_TRUE(vertically_balanced(LanePermutationMap(NamedPermutation::kWid, width), width)) << width;
    EXPECT_TRUE(vertically_balanced(LanePermutationMap(NamedPermutation::kRevWid, width), width)) << width;
  }
  // 32 uniform masks out of 32 values repeat one with probability 1 - 32!/32^32, which is about 1.
  EXPECT_FALSE(vertically_balanced(LanePermutationMap(NamedPermutation::kRandom, 32, 1), 32));
}

TEST(PermutationBalanced, PermutationsWithOnlyTwoMasksAreNotVerticallyBalanced) {
  for (NamedPermutation p :
       {NamedPermutation::kIdentity, NamedPermutation::kOddEven, NamedPermutation::kXorHalf,
        NamedPermutation::kFlipOdd, NamedPermutation::kRotateOdd1}) {
    const LanePermutationMap map(p, 32);
    EXPECT_TRUE(vertically_balanced(map, p == NamedPermutation::kIdentity ? 1 : 2)) << permutation_name(p);
    EXPECT_FALSE(vertically_balanced(map, 3)) << permutation_name(p);
  }
}

TEST(PermutationTableLoad, XorPermutationsLoadIntoTheTable) {
  for (NamedPermutation p : kAllNamedPermutations) {
    if (!is_xor_permutation(p)) continue;
    for (uint32_t width : {8u, 32u}) {
      const LanePermutationMap map(p, width, 11);
      PermutationTable table(width, 64);
      map.load_into(table);
      for (uint32_t warp = 0; warp < 64; ++warp) {
        EXPECT_EQ(table.xor_mask(warp), map.xor_mask(warp)) << permutation_name(p) << " W" << width;
        for (uint32_t lane = 0; lane < width; ++lane) {
          ASSERT_EQ(table.home_lane(warp, lane), map.home_lane(warp, lane)) << permutation_name(p);
        }
      }
    }
  }
}

TEST(PermutationTableLoad, LoadedBalancedEqualsTheTablesFixedFunctionMode) {
  const LanePermutationMap balanced(NamedPermutation::kBalanced, 32);
  PermutationTable loaded(32, 64);
  balanced.load_into(loaded);
  PermutationTable fixed(32, 64);
  fixed.set_mode(PermutationMode::kBalanced);
  for (uint32_t warp = 0; warp < 64; ++warp) EXPECT_EQ(loaded.xor_mask(warp), fixed.xor_mask(warp)) << warp;
}

TEST(PermutationTableLoad, RotationAndMismatchedWidthsAreRefused) {
  PermutationTable table(8, 16);
  EXPECT_THROW(LanePermutationMap(NamedPermutation::kRotateOdd1, 8).load_into(table), std::logic_error);
  EXPECT_THROW(LanePermutationMap(NamedPermutation::kBalanced, 16).load_into(table), std::invalid_argument);
  // A refused load leaves the table in identity mode.
  EXPECT_EQ(table.xor_mask(1), 0u);
}

}  // namespace
