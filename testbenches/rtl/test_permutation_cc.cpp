// slp_permutation_unit.v against hw::PermutationTable: exhaustive at W=8, random and directed above.
#include <gtest/gtest.h>

#include "Vslp_permutation_unit_w16.h"
#include "Vslp_permutation_unit_w32.h"
#include "Vslp_permutation_unit_w64.h"
#include "Vslp_permutation_unit_w8.h"
#include "hw/units/select/rtl_twins.hpp"
#include "testbenches/rtl/vectors.hpp"

namespace simtlm::rtl_test {
namespace {

using hw::rtl::RtlLanePermutation;

using hw::PermutationMode;
constexpr uint32_t kWarpIds = 64;

// Compares every observable output for one (warp, lane, logical mask); returns how many vectors it checked.
[[nodiscard]] uint64_t expect_same(hw::LanePermutation& model, hw::LanePermutation& rtl, uint32_t warp,
                                   uint32_t lane, uint64_t logical_mask) {
  const uint32_t model_xor = model.xor_mask(warp);
  EXPECT_EQ(model_xor, rtl.xor_mask(warp)) << "warp " << warp;
  EXPECT_EQ(model.home_lane(warp, lane), rtl.home_lane(warp, lane)) << "warp " << warp << " lane " << lane;
  EXPECT_EQ(model.permute_mask(warp, logical_mask), rtl.permute_mask(warp, logical_mask))
      << "warp " << warp << " xor " << model_xor << " logical mask 0x" << std::hex << logical_mask;
  return 3;
}

// Every table entry value at every warp id, every lane and every 8-bit active mask.
TEST(RtlPermutation, W8TableExhaustive) {
  hw::PermutationTable model(8, kWarpIds);
  RtlLanePermutation<Vslp_permutation_unit_w8> rtl(8, kWarpIds);
  model.set_mode(PermutationMode::kTable);
  rtl.set_mode(PermutationMode::kTable);
  uint64_t vectors = 0;
  for (uint32_t warp = 0; warp < kWarpIds; ++warp) {
    for (uint32_t mask = 0; mask < 8; ++mask) {
      model.load(warp, mask);
      rtl.load(warp, mask);
      for (uint64_t logical = 0; logical < 256; ++logical) {
        vectors += expect_same(model, rtl, warp, static_cast<uint32_t>(logical % 8), logical);
        if (HasFailure()) return;
      }
    }
  }
  EXPECT_EQ(vectors, 64u * 8 * 256 * 3);
}

// Balanced and identity modes ignore the table: load a random one first.
TEST(RtlPermutation, W8FixedModesExhaustive) {
  hw::PermutationTable model(8, kWarpIds);
  RtlLanePermutation<Vslp_permutation_unit_w8> rtl(8, kWarpIds);
  VectorSource source(8);
  for (uint32_t warp = 0; warp < kWarpIds; ++warp) {
    const auto mask = static_cast<uint32_t>(source.below(8));
    model.load(warp, mask);
    rtl.load(warp, mask);
  }
  uint64_t vectors = 0;
  for (PermutationMode mode : {PermutationMode::kBalanced, PermutationMode::kIdentity}) {
    model.set_mode(mode);
    rtl.set_mode(mode);
    for (uint32_t warp = 0; warp < kWarpIds; ++warp) {
      for (uint64_t logical = 0; logical < 256; ++logical) {
        vectors += expect_same(model, rtl, warp, static_cast<uint32_t>(logical % 8), logical);
        if (HasFailure()) return;
      }
    }
  }
  EXPECT_EQ(vectors, 2u * 64 * 256 * 3);
}

// Random table writes interleaved with reads in every mode; the table starts fully random so a write that
// hits the wrong entry shows up on a later read.
template <typename V>
void random_equivalence(uint32_t width, uint64_t reads) {
  hw::PermutationTable model(width, kWarpIds);
  RtlLanePermutation<V> rtl(width, kWarpIds);
  VectorSource source(width);
  auto load_both = [&](uint32_t warp) {
    const auto mask = static_cast<uint32_t>(source.below(width));
    model.load(warp, mask);
    rtl.load(warp, mask);
  };
  for (uint32_t warp = 0; warp < kWarpIds; ++warp) load_both(warp);
  const PermutationMode modes[] = {PermutationMode::kTable, PermutationMode::kBalanced,
                                   PermutationMode::kIdentity};
  uint64_t vectors = 0;
  for (uint64_t i = 0; i < reads; ++i) {
    if (source.below(16) == 0) load_both(static_cast<uint32_t>(source.below(kWarpIds)));
    if (source.below(64) == 0) {
      const PermutationMode mode = modes[source.below(3)];
      model.set_mode(mode);
      rtl.set_mode(mode);
    }
    const auto warp = static_cast<uint32_t>(source.below(kWarpIds));
    vectors += expect_same(model, rtl, warp, static_cast<uint32_t>(source.below(width)), source.mask(width));
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_EQ(vectors, 3 * reads);
}

TEST(RtlPermutation, W16Random) {
  random_equivalence<Vslp_permutation_unit_w16>(16, 1000000);
}
TEST(RtlPermutation, W32Random) {
  random_equivalence<Vslp_permutation_unit_w32>(32, 1000000);
}
TEST(RtlPermutation, W64Random) {
  random_equivalence<Vslp_permutation_unit_w64>(64, 1000000);
}

// Directed: every warp id with single-lane masks, at the widest unit, in Balanced mode.
TEST(RtlPermutation, W64BalancedSingleLanes) {
  hw::PermutationTable model(64, kWarpIds);
  RtlLanePermutation<Vslp_permutation_unit_w64> rtl(64, kWarpIds);
  model.set_mode(PermutationMode::kBalanced);
  rtl.set_mode(PermutationMode::kBalanced);
  uint64_t vectors = 0;
  for (uint32_t warp = 0; warp < kWarpIds; ++warp) {
    for (uint32_t lane = 0; lane < 64; ++lane) {
      vectors += expect_same(model, rtl, warp, lane, uint64_t{1} << lane);
      if (HasFailure()) return;
    }
  }
  EXPECT_EQ(vectors, 64u * 64 * 3);
}

}  // namespace
}  // namespace simtlm::rtl_test
