// The three STRUCTUREs of majority_unit.v (counting, signed adder tree, majority gate) against
// hw::MajorityUnit and against structure 0: every (taken, active) pair at W=8, every lane state at W=16,
// random vectors plus edge cases at W=32 and W=64, for both tie rules.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <memory>
#include <sstream>
#include <string>

#include "Vmajority_unit_w16_s0.h"
#include "Vmajority_unit_w16_s0_tie_taken.h"
#include "Vmajority_unit_w16_s1.h"
#include "Vmajority_unit_w16_s1_tie_taken.h"
#include "Vmajority_unit_w16_s2.h"
#include "Vmajority_unit_w16_s2_tie_taken.h"
#include "Vmajority_unit_w32_s0.h"
#include "Vmajority_unit_w32_s0_tie_taken.h"
#include "Vmajority_unit_w32_s1.h"
#include "Vmajority_unit_w32_s1_tie_taken.h"
#include "Vmajority_unit_w32_s2.h"
#include "Vmajority_unit_w32_s2_tie_taken.h"
#include "Vmajority_unit_w64_s0.h"
#include "Vmajority_unit_w64_s0_tie_taken.h"
#include "Vmajority_unit_w64_s1.h"
#include "Vmajority_unit_w64_s1_tie_taken.h"
#include "Vmajority_unit_w64_s2.h"
#include "Vmajority_unit_w64_s2_tie_taken.h"
#include "Vmajority_unit_w8_s0.h"
#include "Vmajority_unit_w8_s0_tie_taken.h"
#include "Vmajority_unit_w8_s1.h"
#include "Vmajority_unit_w8_s1_tie_taken.h"
#include "Vmajority_unit_w8_s2.h"
#include "Vmajority_unit_w8_s2_tie_taken.h"
#include "hw/units/select/rtl_twins.hpp"
#include "hw/units/width.hpp"
#include "testbenches/rtl/vectors.hpp"

namespace simtlm::rtl_test {
namespace {

std::string describe(const hw::BranchVote& v) {
  std::ostringstream out;
  PrintTo(v, &out);
  return out.str();
}

// What the stimulus reached: exact for the exhaustive tests, a floor for the random ones.
struct Coverage {
  uint64_t vectors = 0;
  uint64_t empty = 0;
  uint64_t ties = 0;
  uint64_t herded_taken = 0;
  uint64_t uniform = 0;
  bool operator==(const Coverage&) const = default;
};

void PrintTo(const Coverage& c, std::ostream* os) {
  *os << "{vectors=" << c.vectors << " empty=" << c.empty << " ties=" << c.ties
      << " herded_taken=" << c.herded_taken << " uniform=" << c.uniform << "}";
}

// Structures 0, 1 and 2 of one width and tie rule, next to the C++ model.
template <typename S0, typename S1, typename S2>
class StructureBench {
 public:
  StructureBench(uint32_t width, hw::MajorityTie tie)
      : lanes_(hw::lane_mask_of(width)), model_(width, tie), s0_(width), s1_(width), s2_(width) {}

  // False (with `mismatch` saying where) when a structure differs from the model or from structure 0.
  bool check(uint64_t taken, uint64_t active) {
    taken &= lanes_;
    active &= lanes_;
    const hw::BranchVote expected = model_.vote(taken, active);
    const hw::BranchVote counting = s0_.vote(taken, active);
    const hw::BranchVote tree = s1_.vote(taken, active);
    const hw::BranchVote gate = s2_.vote(taken, active);
    if (counting != expected || tree != expected || gate != expected || tree != counting ||
        gate != counting) {
      std::ostringstream out;
      out << std::hex << "taken=0x" << taken << " active=0x" << active
          << "\n  model:       " << describe(expected) << "\n  STRUCTURE 0: " << describe(counting)
          << "\n  STRUCTURE 1: " << describe(tree) << "\n  STRUCTURE 2: " << describe(gate);
      mismatch = out.str();
      return false;
    }
    ++cover.vectors;
    cover.empty += active == 0;
    cover.ties += active != 0 && 2 * std::popcount(taken & active) == std::popcount(active);
    cover.herded_taken += expected.herd_taken;
    cover.uniform += expected.uniform;
    return true;
  }

  Coverage cover;
  std::string mismatch;

 private:
  uint64_t lanes_;
  hw::MajorityUnit model_;
  // The twins of `--rtl majority`; final classes, so these calls need no virtual dispatch (3^16 states at
  // W=16).
  hw::rtl::RtlMajority<S0> s0_;
  hw::rtl::RtlMajority<S1> s1_;
  hw::rtl::RtlMajority<S2> s2_;
};

uint64_t binomial(uint32_t n, uint32_t k) {
  uint64_t result = 1;
  for (uint32_t i = 1; i <= k; ++i) result = result * (n - k + i) / i;
  return result;
}

// Coverage an exhaustive enumeration must reach, counted from lane combinatorics alone: `inactive_states` is
// how many distinct inputs one inactive lane has in the enumeration (2 when its taken bit is enumerated).
Coverage exhaustive_coverage(uint32_t width, uint64_t inactive_states, hw::MajorityTie tie) {
  Coverage expected;
  for (uint32_t voters = 0; voters <= width; ++voters) {
    uint64_t inactive = 1;
    for (uint32_t lane = voters; lane < width; ++lane) inactive *= inactive_states;
    for (uint32_t yes = 0; yes <= voters; ++yes) {
      const uint64_t states = binomial(width, voters) * binomial(voters, yes) * inactive;
      const bool tied = voters != 0 && 2 * yes == voters;
      expected.vectors += states;
      expected.empty += voters == 0 ? states : 0;
      expected.ties += tied ? states : 0;
      const bool herded = voters != 0 && (2 * yes > voters || (tied && tie == hw::MajorityTie::kTaken));
      expected.herded_taken += herded ? states : 0;
      expected.uniform += voters != 0 && (yes == 0 || yes == voters) ? states : 0;
    }
  }
  return expected;
}

template <typename S0, typename S1, typename S2>
void every_pair_w8(hw::MajorityTie tie) {
  StructureBench<S0, S1, S2> bench(8, tie);
  for (uint64_t taken = 0; taken < 256; ++taken) {
    for (uint64_t active = 0; active < 256; ++active) {
      ASSERT_TRUE(bench.check(taken, active)) << bench.mismatch;
    }
  }
  EXPECT_EQ(bench.cover, exhaustive_coverage(8, 2, tie));
}

TEST(RtlMajorityStructures, W8EveryPairTiesNotTaken) {
  every_pair_w8<Vmajority_unit_w8_s0, Vmajority_unit_w8_s1, Vmajority_unit_w8_s2>(hw::MajorityTie::kNotTaken);
}
TEST(RtlMajorityStructures, W8EveryPairTiesTaken) {
  every_pair_w8<Vmajority_unit_w8_s0_tie_taken, Vmajority_unit_w8_s1_tie_taken,
                Vmajority_unit_w8_s2_tie_taken>(hw::MajorityTie::kTaken);
}

// Every one of the 3^16 lane states (inactive, taken, not taken); an inactive lane's taken bit is random,
// since it must not matter. The states are visited as a base-3 counter, updating the masks lane by lane.
template <typename S0, typename S1, typename S2>
void every_lane_state_w16(hw::MajorityTie tie) {
  constexpr uint32_t kWidth = 16;
  enum LaneState : uint8_t { kInactive, kTaken, kNotTaken };
  StructureBench<S0, S1, S2> bench(kWidth, tie);
  VectorSource noise(0x5eed16);
  LaneState state[kWidth] = {};
  uint64_t active = 0;
  uint64_t yes = 0;
  while (true) {
    ASSERT_TRUE(bench.check(yes | (noise.bits() & ~active), active)) << bench.mismatch;
    uint32_t lane = 0;
    while (lane < kWidth && state[lane] == kNotTaken) {
      state[lane] = kInactive;
      active &= ~(uint64_t{1} << lane);
      ++lane;
    }
    if (lane == kWidth) break;
    const uint64_t bit = uint64_t{1} << lane;
    if (state[lane] == kInactive) {
      state[lane] = kTaken;
      active |= bit;
      yes |= bit;
    } else {
      state[lane] = kNotTaken;
      yes &= ~bit;
    }
  }
  EXPECT_EQ(bench.cover, exhaustive_coverage(kWidth, 1, tie));
  EXPECT_EQ(bench.cover.vectors, 43046721u);  // 3^16
}

TEST(RtlMajorityStructures, W16EveryLaneStateTiesNotTaken) {
  every_lane_state_w16<Vmajority_unit_w16_s0, Vmajority_unit_w16_s1, Vmajority_unit_w16_s2>(
      hw::MajorityTie::kNotTaken);
}
TEST(RtlMajorityStructures, W16EveryLaneStateTiesTaken) {
  every_lane_state_w16<Vmajority_unit_w16_s0_tie_taken, Vmajority_unit_w16_s1_tie_taken,
                       Vmajority_unit_w16_s2_tie_taken>(hw::MajorityTie::kTaken);
}

// Random masks of random density, then the edge cases: no active lane, each single lane taken and not taken,
// all lanes taken, and for every voter count every taken count (all ties among them) at random lanes.
template <typename S0, typename S1, typename S2>
void random_and_edges(uint32_t width, hw::MajorityTie tie) {
  constexpr uint64_t kRandomVectors = 1000000;
  StructureBench<S0, S1, S2> bench(width, tie);
  VectorSource source(0x5eed00 + width);
  const uint64_t lanes = hw::lane_mask_of(width);
  for (uint64_t i = 0; i < kRandomVectors; ++i) {
    const uint64_t taken = source.mask(width);
    ASSERT_TRUE(bench.check(taken, source.mask(width))) << bench.mismatch;
  }
  ASSERT_TRUE(bench.check(lanes, 0)) << bench.mismatch;
  ASSERT_TRUE(bench.check(0, 0)) << bench.mismatch;
  ASSERT_TRUE(bench.check(lanes, lanes)) << bench.mismatch;
  ASSERT_TRUE(bench.check(0, lanes)) << bench.mismatch;
  for (uint32_t lane = 0; lane < width; ++lane) {
    const uint64_t bit = uint64_t{1} << lane;
    ASSERT_TRUE(bench.check(bit, bit)) << bench.mismatch;
    ASSERT_TRUE(bench.check(lanes & ~bit, bit)) << bench.mismatch;
  }
  uint64_t ties = 0;
  for (uint32_t voters = 0; voters <= width; ++voters) {
    for (uint32_t yes = 0; yes <= voters; ++yes) {
      for (int placement = 0; placement < 4; ++placement) {
        uint64_t active = 0;
        while (std::popcount(active) < static_cast<int>(voters)) active |= uint64_t{1} << source.below(width);
        uint64_t taken = 0;
        while (std::popcount(taken) < static_cast<int>(yes))
          taken |= active & (uint64_t{1} << source.below(width));
        ties += voters != 0 && 2 * yes == voters;
        ASSERT_TRUE(bench.check(taken | (source.bits() & ~active), active)) << bench.mismatch;
      }
    }
  }
  EXPECT_EQ(bench.cover.vectors, kRandomVectors + 4 + 2 * width + 4 * (width + 1) * (width + 2) / 2);
  EXPECT_EQ(ties, 4u * (width / 2));
  EXPECT_GE(bench.cover.ties, ties);
  EXPECT_GT(bench.cover.empty, 1u);
  EXPECT_GT(bench.cover.herded_taken, kRandomVectors / 10);
  EXPECT_LT(bench.cover.herded_taken, bench.cover.vectors - kRandomVectors / 10);
  EXPECT_GT(bench.cover.uniform, kRandomVectors / 10);
}

TEST(RtlMajorityStructures, W32RandomAndEdgeCases) {
  random_and_edges<Vmajority_unit_w32_s0, Vmajority_unit_w32_s1, Vmajority_unit_w32_s2>(
      32, hw::MajorityTie::kNotTaken);
  random_and_edges<Vmajority_unit_w32_s0_tie_taken, Vmajority_unit_w32_s1_tie_taken,
                   Vmajority_unit_w32_s2_tie_taken>(32, hw::MajorityTie::kTaken);
}
TEST(RtlMajorityStructures, W64RandomAndEdgeCases) {
  random_and_edges<Vmajority_unit_w64_s0, Vmajority_unit_w64_s1, Vmajority_unit_w64_s2>(
      64, hw::MajorityTie::kNotTaken);
  random_and_edges<Vmajority_unit_w64_s0_tie_taken, Vmajority_unit_w64_s1_tie_taken,
                   Vmajority_unit_w64_s2_tie_taken>(64, hw::MajorityTie::kTaken);
}

}  // namespace
}  // namespace simtlm::rtl_test
