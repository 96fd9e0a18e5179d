// Rules written once and shared by several layers (issue 12): CTA numbering, the budget report, the location
// spelling of messages, the compaction study's mechanism names and the one PRNG (no SystemC).
#include <gtest/gtest.h>

#include <type_traits>

#include "common/location.hpp"
#include "common/prng.hpp"
#include "hw/units/permutations.hpp"
#include "models/launch/buffers.hpp"
#include "models/ptx/grid_rules.hpp"
#include "studies/compaction_study.hpp"

namespace simtlm {
namespace {

std::string coordinates(const ptx::Dim3& d) {
  return std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z);
}

TEST(SharedRules, CtaCoordinatesNumberXFastestThenYThenZ) {
  const ptx::Dim3 grid{3, 2, 4};
  EXPECT_EQ(coordinates(ptx::cta_coordinates(grid, 0)), "0,0,0");
  EXPECT_EQ(coordinates(ptx::cta_coordinates(grid, 1)), "1,0,0");
  EXPECT_EQ(coordinates(ptx::cta_coordinates(grid, 3)), "0,1,0");
  EXPECT_EQ(coordinates(ptx::cta_coordinates(grid, 5)), "2,1,0");
  EXPECT_EQ(coordinates(ptx::cta_coordinates(grid, 6)), "0,0,1");
  EXPECT_EQ(coordinates(ptx::cta_coordinates(grid, 23)), "2,1,3");
  // Linear ids past 2^32 (grids of up to 2^31-1 x 65535 x 65535 CTAs) keep their high bits.
  const ptx::Dim3 wide{65536, 65536, 4};
  EXPECT_EQ(coordinates(ptx::cta_coordinates(wide, (uint64_t{3} << 32) + (uint64_t{7} << 16) + 5)), "5,7,3");
}

TEST(SharedRules, BudgetMessageNamesBudgetAndPlace) {
  EXPECT_EQ(
      ptx::budget_exceeded_message(1000, "kernel k, CTA (0,0,0) warp 1 at PC 4"),
      "instruction budget of 1000 thread instructions exceeded in kernel k, CTA (0,0,0) warp 1 at PC 4");
}

TEST(SharedRules, LocationSpellsFileColonLine) {
  EXPECT_EQ(common::location("kernels/a.cu", 42), "kernels/a.cu:42");
  EXPECT_EQ(common::at_location("run.yaml", 7, "grid: must be positive"),
            "run.yaml:7: grid: must be positive");
}

TEST(SharedRules, StudyMechanismLabelsAreTheStudysSpelling) {
  using hw::Compaction;
  using hw::NamedPermutation;
  EXPECT_EQ((studies::StudyMechanism{Compaction::none, NamedPermutation::kBalanced}.label()), "no_tbc");
  EXPECT_EQ((studies::StudyMechanism{Compaction::ideal, NamedPermutation::kBalanced}.label()), "ideal");
  EXPECT_EQ((studies::StudyMechanism{Compaction::tbc, NamedPermutation::kRevWid}.label()), "tbc+rev_wid");
  EXPECT_EQ((studies::StudyMechanism{Compaction::capri, NamedPermutation::kIdentity}.label()),
            "capri+identity");
  std::vector<std::string> labels;
  for (const auto& m : studies::study_mechanisms({NamedPermutation::kIdentity, NamedPermutation::kOddEven}))
    labels.push_back(m.label());
  EXPECT_EQ(labels, (std::vector<std::string>{"no_tbc", "ideal", "tbc+identity", "tbc+odd_even"}));
}

TEST(SharedRules, LaunchBuffersAndLanePermutationsDrawFromOnePrng) {
  static_assert(std::is_same_v<launch::SplitMix64, common::SplitMix64>);
  // The random permutation's XOR masks are the generator's low bits, seed by seed.
  common::SplitMix64 rng(9);
  const hw::LanePermutationMap map(hw::NamedPermutation::kRandom, 32, 9);
  for (uint32_t w = 0; w < 4; ++w) EXPECT_EQ(map.xor_mask(w), uint32_t(rng.next() & 31)) << "warp " << w;
}

}  // namespace
}  // namespace simtlm
