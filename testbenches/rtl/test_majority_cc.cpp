// majority_unit.v against hw::MajorityUnit: all (taken, active) pairs at W=8, random and directed above.
#include <gtest/gtest.h>

#include <bit>

#include "Vmajority_unit_w16.h"
#include "Vmajority_unit_w32.h"
#include "Vmajority_unit_w64.h"
#include "Vmajority_unit_w8.h"
#include "Vmajority_unit_w8_tie_taken.h"
#include "hw/units/select/rtl_twins.hpp"
#include "testbenches/rtl/vectors.hpp"

namespace simtlm::rtl_test {
namespace {

using hw::rtl::RtlMajority;

// What the stimulus reached, so a test whose vectors never hit a tie or a uniform branch fails.
struct Coverage {
  uint64_t vectors = 0;
  uint64_t ties = 0;
  uint64_t herded_taken = 0;
  uint64_t uniform = 0;
  uint64_t empty = 0;
};

void check(hw::BranchMajority& model, hw::BranchMajority& rtl, uint64_t taken, uint64_t active,
           Coverage& cover) {
  const hw::BranchVote expected = model.vote(taken, active);
  ASSERT_EQ(expected, rtl.vote(taken, active)) << std::hex << "taken=0x" << taken << " active=0x" << active;
  ++cover.vectors;
  cover.ties += active != 0 && 2 * std::popcount(taken & active) == std::popcount(active);
  cover.herded_taken += expected.herd_taken;
  cover.uniform += expected.uniform;
  cover.empty += active == 0;
}

void exhaustive_w8(hw::BranchMajority& model, hw::BranchMajority& rtl) {
  Coverage cover;
  for (uint64_t taken = 0; taken < 256; ++taken) {
    for (uint64_t active = 0; active < 256; ++active) {
      ASSERT_NO_FATAL_FAILURE(check(model, rtl, taken, active, cover));
    }
  }
  EXPECT_EQ(cover.vectors, 65536u);
}

TEST(RtlMajority, W8ExhaustiveTiesNotTaken) {
  hw::MajorityUnit model(8, hw::MajorityTie::kNotTaken);
  RtlMajority<Vmajority_unit_w8> rtl(8);
  exhaustive_w8(model, rtl);
}

TEST(RtlMajority, W8ExhaustiveTiesTaken) {
  hw::MajorityUnit model(8, hw::MajorityTie::kTaken);
  RtlMajority<Vmajority_unit_w8_tie_taken> rtl(8);
  exhaustive_w8(model, rtl);
}

// The tie rule must actually differ between the two builds, or the exhaustive tests above prove less.
TEST(RtlMajority, W8TieRuleVariantsDisagreeOnTies) {
  RtlMajority<Vmajority_unit_w8> ties_not_taken(8);
  RtlMajority<Vmajority_unit_w8_tie_taken> ties_taken(8);
  EXPECT_FALSE(ties_not_taken.vote(0x0f, 0xff).herd_taken);
  EXPECT_TRUE(ties_taken.vote(0x0f, 0xff).herd_taken);
}

// Random masks of varied density, then directed: for every active-lane count k, every taken count 0..k
// (this hits every tie, all-taken and none-taken).
template <typename V>
void random_and_directed(uint32_t width, uint64_t random_vectors) {
  hw::MajorityUnit model(width);
  RtlMajority<V> rtl(width);
  VectorSource source(width);
  Coverage cover;
  for (uint64_t i = 0; i < random_vectors; ++i) {
    const uint64_t taken = source.mask(width);
    const uint64_t active = source.mask(width);
    ASSERT_NO_FATAL_FAILURE(check(model, rtl, taken, active, cover));
  }
  for (uint32_t voters = 0; voters <= width; ++voters) {
    for (uint32_t yes = 0; yes <= voters; ++yes) {
      // Random lane positions: shuffle by picking lanes until the counts are reached.
      uint64_t active = 0;
      while (std::popcount(active) < static_cast<int>(voters)) active |= uint64_t{1} << source.below(width);
      uint64_t taken = 0;
      while (std::popcount(taken) < static_cast<int>(yes))
        taken |= active & (uint64_t{1} << source.below(width));
      taken |= source.mask(width) & ~active;  // inactive lanes' outcomes must not matter
      ASSERT_NO_FATAL_FAILURE(check(model, rtl, taken, active, cover));
    }
  }
  EXPECT_GT(cover.ties, 0u);
  EXPECT_GT(cover.herded_taken, 0u);
  EXPECT_LT(cover.herded_taken, cover.vectors);
  EXPECT_GT(cover.uniform, 0u);
  EXPECT_GT(cover.empty, 0u);
}

TEST(RtlMajority, W16RandomAndDirected) {
  random_and_directed<Vmajority_unit_w16>(16, 1000000);
}
TEST(RtlMajority, W32RandomAndDirected) {
  random_and_directed<Vmajority_unit_w32>(32, 1000000);
}
TEST(RtlMajority, W64RandomAndDirected) {
  random_and_directed<Vmajority_unit_w64>(64, 1000000);
}

}  // namespace
}  // namespace simtlm::rtl_test
