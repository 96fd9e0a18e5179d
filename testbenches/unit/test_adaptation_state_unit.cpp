// The adaptation state unit on synthetic cycles-per-task functions (robust-simd paper, Section VI). Every
// expected sequence below was traced by hand from the state machine in adaptation_state_unit.hpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "hw/units/adaptation_state_unit.hpp"

namespace simtlm::hw {

// Lets failing expectations print organizations as width x depth (found by argument-dependent lookup).
[[maybe_unused]] static void PrintTo(const Organization& o, std::ostream* os) {
  *os << o.width << "x" << o.depth;
}

namespace {

using Cpt = std::function<double(const Organization&)>;

struct Step {
  Organization suggested;
  std::string state;  // state_name() once suggested
  uint32_t stride;
};

// Feeds the unit the CPT of the organization it asks for (as cycles for 1000 tasks) until it converges.
std::vector<Step> run(AdaptationStateUnit& asu, const Cpt& cpt, uint32_t max_intervals = 200) {
  std::vector<Step> steps;
  while (!asu.converged() && steps.size() < max_intervals) {
    const double cycles = std::round(cpt(asu.current()) * 1000.0);
    const Organization next = asu.end_interval(static_cast<uint64_t>(cycles), 1000);
    EXPECT_EQ(next, asu.current());
    steps.push_back(Step{next, asu.state_name(), asu.stride()});
  }
  return steps;
}

std::vector<Organization> suggested(const std::vector<Step>& steps) {
  std::vector<Organization> out;
  for (const Step& s : steps) out.push_back(s.suggested);
  return out;
}

std::vector<Organization> widths(const std::vector<uint32_t>& ws, uint32_t depth) {
  std::vector<Organization> out;
  for (uint32_t w : ws) out.push_back(Organization{w, depth});
  return out;
}

std::vector<Organization> depths(uint32_t width, const std::vector<uint32_t>& ds) {
  std::vector<Organization> out;
  for (uint32_t d : ds) out.push_back(Organization{width, d});
  return out;
}

std::vector<Organization> operator+(std::vector<Organization> a, const std::vector<Organization>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

AsuParams params(AdaptStrategy strategy, AdaptStride stride, uint32_t lanes, uint32_t warps,
                 Organization start) {
  AsuParams p;
  p.strategy = strategy;
  p.stride = stride;
  p.lanes = lanes;
  p.warps = warps;
  p.start = start;
  return p;
}

// Bowl with its minimum at 8 x 4.
double bowl(const Organization& o) {
  const double w = double(o.width) - 8.0;
  const double d = double(o.depth) - 4.0;
  return w * w + 10.0 * d * d + 100.0;
}

double square(double x) {
  return x * x;
}

TEST(AdaptationStateUnit, WidthOnlyIncWalksDownToTheMinimum) {
  AdaptationStateUnit asu(params(AdaptStrategy::width_only, AdaptStride::inc, 8, 1, {8, 1}));
  EXPECT_EQ(asu.state_name(), "start");
  EXPECT_EQ(asu.stride(), 1u);
  const auto steps = run(asu, [](const Organization& o) { return std::abs(double(o.width) - 3.0) + 10.0; });
  // 9 is past the lanes: the first probe is 7, then the unit keeps narrowing while CPT drops; 2 is worse.
  EXPECT_EQ(suggested(steps), widths({7, 6, 5, 4, 3, 2, 3}, 1));
  EXPECT_EQ(steps.front().state, "width-");
  EXPECT_EQ(steps[4].state, "width-");
  EXPECT_EQ(steps.back().state, "converged");
  EXPECT_EQ(asu.best(), (Organization{3, 1}));
}

TEST(AdaptationStateUnit, WidthOnlyAnnealHalvesTheStride) {
  AdaptationStateUnit asu(params(AdaptStrategy::width_only, AdaptStride::anneal, 32, 2, {32, 2}));
  EXPECT_EQ(asu.stride(), 16u);
  const auto steps = run(asu, [](const Organization& o) { return square(double(o.width) - 6.0) + 100.0; });
  // Stride 16: 16 wins. 8: 24 loses, 8 wins. 4: 12 and 4 lose (4 only ties). 2: 10 loses, 6 wins, 4 loses.
  // 1: 7 and 5 lose.
  EXPECT_EQ(suggested(steps), widths({16, 24, 8, 12, 4, 10, 6, 4, 7, 5, 6}, 2));
  const std::vector<uint32_t> strides = {16, 8, 8, 4, 4, 2, 2, 2, 1, 1, 0};
  for (size_t i = 0; i < steps.size(); ++i) EXPECT_EQ(steps[i].stride, strides[i]) << i;
  EXPECT_EQ(steps[1].state, "width+");
  EXPECT_EQ(steps[2].state, "width-");
}

// Width-only keeps its number of active slices: widths too wide for depth 8 are out of range.
TEST(AdaptationStateUnit, WidthOnlyNeverChangesDepth) {
  AdaptationStateUnit asu(params(AdaptStrategy::width_only, AdaptStride::anneal, 32, 2, {4, 8}));
  const auto steps = run(asu, [](const Organization& o) { return square(double(o.width) - 6.0); });
  // Strides 16 and 8 have no width <= 8 to try; 4: 8 ties; 2: 6 wins, 2 and 8 lose; 1: 7 and 5 lose.
  EXPECT_EQ(suggested(steps), widths({8, 6, 2, 8, 7, 5, 6}, 8));
}

TEST(AdaptationStateUnit, DepthOnlyIncNeverChangesWidth) {
  AdaptationStateUnit asu(params(AdaptStrategy::depth_only, AdaptStride::inc, 32, 4, {8, 1}));
  EXPECT_EQ(asu.max_depth(8), 16u);
  const auto steps = run(asu, [](const Organization& o) { return square(double(o.depth) - 5.0) + 50.0; });
  EXPECT_EQ(suggested(steps), depths(8, {2, 3, 4, 5, 6, 5}));
  EXPECT_EQ(steps.front().state, "depth+");
}

TEST(AdaptationStateUnit, DepthOnlyAnnealStartsAtHalfTheMaxDepth) {
  AdaptationStateUnit asu(params(AdaptStrategy::depth_only, AdaptStride::anneal, 32, 4, {8, 1}));
  EXPECT_EQ(asu.stride(), 8u);
  const auto steps = run(asu, [](const Organization& o) { return square(double(o.depth) - 5.0) + 50.0; });
  // Stride 8: 9 ties. 4: 5 wins, 9 loses. 2: 7 and 3 lose. 1: 6 and 4 lose.
  EXPECT_EQ(suggested(steps), depths(8, {9, 5, 9, 7, 3, 6, 4, 5}));
}

TEST(AdaptationStateUnit, DwrepIncRepeatsRoundsUntilOneChangesNothing) {
  AdaptationStateUnit asu(params(AdaptStrategy::dwrep, AdaptStride::inc, 32, 2, {32, 1}));
  const auto steps = run(asu, bowl);
  std::vector<uint32_t> narrowing;
  for (uint32_t w = 31; w >= 7; --w) narrowing.push_back(w);
  // Round 1: depth 2 (the most at width 32), then width 31 down to 8 (7 loses). Round 2: depth 3 wins, 1
  // loses, 4 wins, 5 loses; widths 9 and 7 lose. Round 3 changes nothing: depths 5, 3; widths 9, 7.
  const auto expected = depths(32, {2}) + widths(narrowing, 2) + depths(8, {3, 1, 4, 5}) + widths({9, 7}, 4) +
                        depths(8, {5, 3}) + widths({9, 7}, 4) + depths(8, {4});
  EXPECT_EQ(suggested(steps), expected);
  EXPECT_EQ(steps[0].state, "depth+");
  EXPECT_EQ(steps[1].state, "width-");
  EXPECT_EQ(steps.back().state, "converged");
}

TEST(AdaptationStateUnit, DwrepAnnealClampsDepthAndConverges) {
  AdaptationStateUnit asu(params(AdaptStrategy::dwrep, AdaptStride::anneal, 32, 2, {32, 1}));
  EXPECT_EQ(asu.stride(), 1u) << "half of max_depth(32) = 2";
  const auto steps = run(asu, bowl);
  // Round 1: depth 2; widths at stride 16 (16), 8 (24, 8), 4 (12, 4), 2 (10, 6), 1 (9, 7).
  // Round 2: depth strides 4 (6), 2 (4 wins, 6 loses), 1 (5, 3); then every width loses.
  // Round 3: depths 8, 6, 2, 5, 3 and the same widths change nothing.
  const auto width_round = widths({24, 16, 12, 4, 10, 6, 9, 7}, 4);
  const auto expected = depths(32, {2}) + widths({16, 24, 8, 12, 4, 10, 6, 9, 7}, 2) +
                        depths(8, {6, 4, 6, 5, 3}) + width_round + depths(8, {8, 6, 2, 5, 3}) + width_round +
                        depths(8, {4});
  EXPECT_EQ(suggested(steps), expected);
  EXPECT_EQ(steps[10].stride, 4u) << "depth stride of round 2: half of max_depth(8) = 8";
  EXPECT_EQ(steps[15].state, "width+");
  EXPECT_EQ(steps[15].stride, 16u);
}

TEST(AdaptationStateUnit, StartAtTheOptimumOnlyProbes) {
  AdaptationStateUnit asu(params(AdaptStrategy::dwrep, AdaptStride::anneal, 32, 2, {8, 4}));
  const auto steps = run(asu, bowl);
  EXPECT_EQ(suggested(steps),
            depths(8, {8, 6, 2, 5, 3}) + widths({24, 16, 12, 4, 10, 6, 9, 7}, 4) + depths(8, {4}));
}

TEST(AdaptationStateUnit, ConvergedStays) {
  AdaptationStateUnit asu(params(AdaptStrategy::depth_only, AdaptStride::inc, 32, 1, {32, 1}));
  // One warp of 32 lanes: no other depth exists, so the first interval converges.
  EXPECT_EQ(asu.end_interval(500, 10), (Organization{32, 1}));
  EXPECT_TRUE(asu.converged());
  EXPECT_EQ(asu.end_interval(1, 1000), (Organization{32, 1}));
  EXPECT_EQ(asu.end_interval(100000, 0), (Organization{32, 1}));
  EXPECT_TRUE(asu.converged());
  EXPECT_EQ(asu.state_name(), "converged");
  EXPECT_EQ(asu.stride(), 0u);
}

TEST(AdaptationStateUnit, IntervalWithoutTasksLosesToAnyOther) {
  AdaptationStateUnit asu(params(AdaptStrategy::width_only, AdaptStride::inc, 4, 1, {4, 1}));
  EXPECT_EQ(asu.end_interval(100, 0), (Organization{3, 1}));
  EXPECT_EQ(asu.end_interval(1000, 1), (Organization{2, 1}));  // 3 beats the start's infinite CPT
  EXPECT_EQ(asu.end_interval(1000, 1), (Organization{3, 1}));  // 2 only ties
  EXPECT_TRUE(asu.converged());
}

// min_gain 0.05 against +-3% noise: a steep bowl where every step towards the minimum gains at least 20%
// and every step away loses at least 25%, so noise flips no decision and the unit ends at the minimum.
TEST(AdaptationStateUnit, NoiseWithinMinGainStillFindsTheMinimum) {
  const auto steep = [](const Organization& o) {
    const int w = int(o.width) - 8;
    const int d = int(o.depth) - 4;
    return 100.0 * std::pow(w > 0 ? 1.25 : 1.45, std::abs(w)) * std::pow(d > 0 ? 1.3 : 1.5, std::abs(d));
  };
  AsuParams p = params(AdaptStrategy::dwrep, AdaptStride::anneal, 32, 2, {32, 1});
  p.min_gain = 0.05;
  uint32_t state = 12345;
  const auto noisy = [&](const Organization& o) {
    state = state * 1664525u + 1013904223u;                     // LCG: a fixed, reproducible sequence
    const double unit = double(state >> 8) / double(1u << 24);  // [0, 1)
    return steep(o) * (1.0 + 0.03 * (2.0 * unit - 1.0));
  };
  AdaptationStateUnit quiet(p);
  AdaptationStateUnit loud(p);
  const auto noisy_steps = run(loud, noisy);
  EXPECT_EQ(suggested(noisy_steps), suggested(run(quiet, steep)));
  // As the bowl's path, except that in round 2 depth 6 beats depth 2 at stride 4 (1.3^2 < 1.5^2), so stride
  // 2 probes 8 and 4 around 6, 4 wins and the move to 2 loses.
  const auto width_round = widths({24, 16, 12, 4, 10, 6, 9, 7}, 4);
  const auto expected = depths(32, {2}) + widths({16, 24, 8, 12, 4, 10, 6, 9, 7}, 2) +
                        depths(8, {6, 8, 4, 2, 5, 3}) + width_round + depths(8, {8, 6, 2, 5, 3}) +
                        width_round + depths(8, {4});
  EXPECT_EQ(suggested(noisy_steps), expected);
  EXPECT_EQ(loud.best(), (Organization{8, 4}));
}

TEST(AdaptationStateUnit, RejectsBadParameters) {
  EXPECT_THROW(AdaptationStateUnit(params(AdaptStrategy::dwrep, AdaptStride::inc, 32, 2, {0, 1})),
               std::invalid_argument);
  EXPECT_THROW(AdaptationStateUnit(params(AdaptStrategy::dwrep, AdaptStride::inc, 32, 2, {33, 1})),
               std::invalid_argument);
  EXPECT_THROW(AdaptationStateUnit(params(AdaptStrategy::dwrep, AdaptStride::inc, 32, 2, {32, 3})),
               std::invalid_argument);
  EXPECT_THROW(AdaptationStateUnit(params(AdaptStrategy::dwrep, AdaptStride::inc, 32, 2, {32, 0})),
               std::invalid_argument);
  AsuParams p = params(AdaptStrategy::dwrep, AdaptStride::inc, 32, 2, {32, 1});
  p.min_gain = 1.0;
  EXPECT_THROW(AdaptationStateUnit{p}, std::invalid_argument);
  EXPECT_NO_THROW(AdaptationStateUnit(params(AdaptStrategy::dwrep, AdaptStride::inc, 32, 2, {16, 4})));
  EXPECT_EQ(AdaptationStateUnit(params(AdaptStrategy::dwrep, AdaptStride::inc, 32, 2, {16, 4})).max_depth(5),
            14u);  // 2 warps x ceil(32 / 5) slices
}

}  // namespace
}  // namespace simtlm::hw
