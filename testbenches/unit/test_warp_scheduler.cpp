// Issue orders of the four warp-scheduling policies on small, hand-checked scenarios.
#include <gtest/gtest.h>

#include <vector>

#include "hw/warp_scheduler.hpp"

using namespace simtlm::hw;

namespace {

std::vector<int> issue_sequence(WarpScheduler& s, const std::vector<std::vector<uint8_t>>& ready_per_cycle) {
  std::vector<int> order;
  for (const auto& ready : ready_per_cycle) order.push_back(s.pick(ready));
  return order;
}

WarpScheduler with_warps(SchedulerPolicy p, uint32_t n, uint32_t active = 8) {
  WarpScheduler s(p, n, active);
  for (uint32_t w = 0; w < n; ++w) s.add_warp(w);
  return s;
}

const std::vector<uint8_t> kAll4{1, 1, 1, 1};

TEST(WarpScheduler, LooseRoundRobinRotates) {
  auto s = with_warps(SchedulerPolicy::loose_round_robin, 4);
  EXPECT_EQ(issue_sequence(s, {kAll4, kAll4, kAll4, kAll4, kAll4}), (std::vector<int>{0, 1, 2, 3, 0}));
  EXPECT_EQ(s.pick({1, 0, 0, 1}), 3);  // after 0, the next ready is 3
  EXPECT_EQ(s.pick({0, 0, 0, 0}), WarpScheduler::kNone);
}

TEST(WarpScheduler, GreedyThenOldestSticksThenFallsBackToOldest) {
  WarpScheduler s(SchedulerPolicy::greedy_then_oldest, 4);
  for (uint32_t w : {2u, 0u, 3u, 1u}) s.add_warp(w);  // ages: 2 oldest, then 0, 3, 1
  EXPECT_EQ(issue_sequence(s, {kAll4, kAll4, {1, 1, 0, 1}, {1, 1, 0, 1}, {0, 1, 0, 1}}),
            (std::vector<int>{2, 2, 0, 0, 3}));
}

TEST(WarpScheduler, StickyRoundRobinSticksThenRotates) {
  auto s = with_warps(SchedulerPolicy::sticky_round_robin, 4);
  EXPECT_EQ(issue_sequence(s, {kAll4, kAll4, {0, 1, 1, 1}, {1, 0, 1, 1}, {1, 0, 0, 1}}),
            (std::vector<int>{0, 0, 1, 2, 3}));
}

TEST(WarpScheduler, TwoLevelSwapsStalledWarpsOutOfTheActiveSet) {
  auto s = with_warps(SchedulerPolicy::two_level, 4, 2);
  EXPECT_TRUE(s.in_active_set(0));
  EXPECT_TRUE(s.in_active_set(1));
  EXPECT_FALSE(s.in_active_set(2));
  EXPECT_EQ(issue_sequence(s, {kAll4, kAll4, kAll4}), (std::vector<int>{0, 1, 0}));
  s.long_latency_stall(0);  // 0 leaves, 2 (head of the FIFO) joins
  EXPECT_FALSE(s.in_active_set(0));
  EXPECT_TRUE(s.in_active_set(2));
  EXPECT_EQ(issue_sequence(s, {kAll4, kAll4}), (std::vector<int>{1, 2}));
  s.remove_warp(1);  // 3 joins
  EXPECT_TRUE(s.in_active_set(3));
  EXPECT_EQ(s.pick(kAll4), 3);
}

// The active set full of warps that cannot issue (waiting at a barrier) must not starve a ready warp outside
// it: hotspot-like CTAs of 8 warps stopped the timing model's watchdog under two_level before.
TEST(WarpScheduler, TwoLevelSwapsInAReadyWarpWhenNoActiveWarpCanIssue) {
  auto s = with_warps(SchedulerPolicy::two_level, 4, 2);
  EXPECT_EQ(s.pick({0, 0, 0, 1}), 3);  // 3 takes slot 0's place (pending FIFO: 2, 0)
  EXPECT_TRUE(s.in_active_set(3));
  EXPECT_FALSE(s.in_active_set(0));
  EXPECT_TRUE(s.in_active_set(1));
  EXPECT_EQ(s.pick({1, 0, 1, 0}), 2);  // neither 1 nor 3 can issue: the FIFO's head 2 replaces 1
  EXPECT_TRUE(s.in_active_set(2));
  EXPECT_FALSE(s.in_active_set(1));
  EXPECT_EQ(s.pick({0, 0, 0, 0}), WarpScheduler::kNone);
}

TEST(WarpScheduler, RemovedWarpsAreNeverPicked) {
  auto s = with_warps(SchedulerPolicy::greedy_then_oldest, 3);
  EXPECT_EQ(s.pick({1, 1, 1}), 0);
  s.remove_warp(0);
  EXPECT_EQ(s.pick({1, 1, 1}), 1);
  EXPECT_THROW(parse_scheduler_policy("fifo"), std::invalid_argument);
  EXPECT_EQ(parse_scheduler_policy("srr"), SchedulerPolicy::sticky_round_robin);
}

}  // namespace
