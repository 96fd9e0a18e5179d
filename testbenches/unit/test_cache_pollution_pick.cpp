// The choice of polluted cache lines (models/mem/pollution.hpp): exact counts, distinct indices, one set per
// seed and per cache, and no favoured line.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <vector>

#include "models/mem/pollution.hpp"

namespace simtlm::mem {
namespace {

TEST(CachePollutionPick, CountIsTheRoundedFractionOfTheLines) {
  // 32 KB of 128-byte lines (the Robust SIMD D-cache) at the paper's degrees of pollution.
  EXPECT_EQ(polluted_line_count(256, 0.0), 0u);
  EXPECT_EQ(polluted_line_count(256, 0.12), 31u);  // 30.72
  EXPECT_EQ(polluted_line_count(256, 0.25), 64u);
  EXPECT_EQ(polluted_line_count(256, 0.5), 128u);
  EXPECT_EQ(polluted_line_count(256, 0.75), 192u);
  EXPECT_EQ(polluted_line_count(256, 0.95), 243u);  // 243.2
  EXPECT_EQ(polluted_line_count(3, 0.5), 2u);       // halves round away from zero
  EXPECT_THROW(polluted_line_count(256, -0.1), std::invalid_argument);
  EXPECT_THROW(polluted_line_count(256, 1.5), std::invalid_argument);
}

TEST(CachePollutionPick, PicksThatManyDistinctLinesInRange) {
  for (const double fraction : {0.12, 0.25, 0.5, 0.75, 0.95}) {
    const std::vector<uint32_t> lines = pick_polluted_lines(256, fraction, 7);
    ASSERT_EQ(lines.size(), polluted_line_count(256, fraction)) << fraction;
    const std::set<uint32_t> distinct(lines.begin(), lines.end());
    EXPECT_EQ(distinct.size(), lines.size()) << fraction;
    EXPECT_LT(*distinct.rbegin(), 256u) << fraction;
  }
  EXPECT_TRUE(pick_polluted_lines(256, 0.0, 7).empty());
  EXPECT_EQ(pick_polluted_lines(8, 1.0, 7).size(), 8u);
}

std::set<uint32_t> as_set(const std::vector<uint32_t>& v) {
  return {v.begin(), v.end()};
}

TEST(CachePollutionPick, OneSetPerSeedAndPerCache) {
  const uint64_t sm0 = pollution_seed_for(1, 0), sm1 = pollution_seed_for(1, 1);
  EXPECT_EQ(pollution_seed_for(1, 0), sm0);
  EXPECT_NE(sm0, sm1);
  EXPECT_NE(pollution_seed_for(2, 0), sm0);
  const auto a = as_set(pick_polluted_lines(256, 0.25, sm0));
  EXPECT_EQ(as_set(pick_polluted_lines(256, 0.25, sm0)), a);                       // reproducible
  EXPECT_NE(as_set(pick_polluted_lines(256, 0.25, sm1)), a);                       // another SM
  EXPECT_NE(as_set(pick_polluted_lines(256, 0.25, pollution_seed_for(2, 0))), a);  // another run seed
  // The first picks do not depend on how many are taken: a larger fraction extends a smaller one's set.
  const auto half = pick_polluted_lines(256, 0.5, sm0);
  EXPECT_EQ(as_set(std::vector<uint32_t>(half.begin(), half.begin() + 64)), a);
}

TEST(CachePollutionPick, EveryLineIsAsLikely) {
  // 2,000 seeds at 25% of 256 lines: each line is expected 500 times (standard deviation 19.4). A choice
  // that favoured low indices, a set or a way would put some line far outside 400..600.
  std::vector<uint32_t> times(256, 0);
  for (uint64_t seed = 0; seed < 2000; ++seed)
    for (uint32_t line : pick_polluted_lines(256, 0.25, pollution_seed_for(seed, 0))) ++times[line];
  EXPECT_GT(*std::min_element(times.begin(), times.end()), 400u);
  EXPECT_LT(*std::max_element(times.begin(), times.end()), 600u);
}

}  // namespace
}  // namespace simtlm::mem
