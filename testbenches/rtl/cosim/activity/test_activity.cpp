// The arithmetic behind docs/area-timing/activity.json: per-pin toggles and duty over a schedule, the width
// adaptation of the 32-lane traces, and each unit's operation schedule, on short hand-made event sequences.
#include <gtest/gtest.h>

#include <map>

#include "testbenches/rtl/cosim/activity/activity.hpp"

namespace simtlm::cosim::activity {
namespace {

std::map<std::string, std::pair<double, double>> by_pin(const std::vector<PinFigures>& pins) {
  std::map<std::string, std::pair<double, double>> out;
  for (const PinFigures& pin : pins) out[pin.pin] = {pin.toggles_per_cycle, pin.duty};
  return out;
}

BranchEvent branch(uint32_t warp, uint32_t active, uint32_t taken) {
  BranchEvent event;
  event.warp = warp;
  event.active = active;
  event.taken = taken;
  return event;
}

TEST(ActivityCounter, ThreeCyclesFromZero) {
  ActivityCounter counter({{"a", 2}, {"b", 1}});
  std::vector<uint64_t> inputs = counter.zero_inputs();
  const uint32_t a = counter.offset("a");
  const uint32_t b = counter.offset("b");
  EXPECT_EQ(a, 0u);
  EXPECT_EQ(b, 2u);
  // a: 01, 11, 10; b: 1, 0, 1 (the first cycle counts a transition from 0).
  for (const auto& [a_value, b_value] : {std::pair{1u, 1u}, std::pair{3u, 0u}, std::pair{2u, 1u}}) {
    put_bits(inputs, a, 2, a_value);
    put_bits(inputs, b, 1, b_value);
    counter.hold(inputs);
  }
  EXPECT_EQ(counter.cycles(), 3u);
  const std::vector<PinFigures> pins = counter.pins();
  ASSERT_EQ(pins.size(), 3u);
  EXPECT_EQ(pins[0].pin, "a[0]");
  EXPECT_EQ(pins[1].pin, "a[1]");
  EXPECT_EQ(pins[2].pin, "b");
  EXPECT_DOUBLE_EQ(pins[0].toggles_per_cycle, 2.0 / 3);  // 0->1, 1->1, 1->0
  EXPECT_DOUBLE_EQ(pins[0].duty, 2.0 / 3);
  EXPECT_DOUBLE_EQ(pins[1].toggles_per_cycle, 1.0 / 3);  // 0->0, 0->1, 1->1
  EXPECT_DOUBLE_EQ(pins[1].duty, 2.0 / 3);
  EXPECT_DOUBLE_EQ(pins[2].toggles_per_cycle, 1.0);  // 0->1, 1->0, 0->1
  EXPECT_DOUBLE_EQ(pins[2].duty, 2.0 / 3);
}

TEST(ActivityCounter, HeldValueTogglesOnceAndCountsEveryCycle) {
  ActivityCounter counter({{"x", 1}});
  std::vector<uint64_t> inputs = counter.zero_inputs();
  put_bits(inputs, 0, 1, 1);
  counter.hold(inputs, 3);
  put_bits(inputs, 0, 1, 0);
  counter.hold(inputs);
  EXPECT_EQ(counter.cycles(), 4u);
  EXPECT_DOUBLE_EQ(counter.pins()[0].toggles_per_cycle, 2.0 / 4);
  EXPECT_DOUBLE_EQ(counter.pins()[0].duty, 3.0 / 4);
}

TEST(ActivityCounter, PutBitsAcrossWords) {
  ActivityCounter counter({{"lo", 60}, {"hi", 8}});
  std::vector<uint64_t> inputs = counter.zero_inputs();
  ASSERT_EQ(inputs.size(), 2u);
  put_bits(inputs, counter.offset("hi"), 8, 0xA5);
  EXPECT_EQ(inputs[0], uint64_t{0x5} << 60);
  EXPECT_EQ(inputs[1], uint64_t{0xA});
  put_bits(inputs, counter.offset("hi"), 8, 0x0F);
  EXPECT_EQ(inputs[0], uint64_t{0xF} << 60);
  EXPECT_EQ(inputs[1], uint64_t{0});
}

TEST(WidthAdaptation, SplitsEachEventIntoNarrowWarpsInLaneOrder) {
  const std::vector<BranchEvent> events = {branch(3, 0xFFFF00F0u, 0x0F000010u)};
  const std::vector<WideBranch> w8 = adapt_branches(events, 8);
  ASSERT_EQ(w8.size(), 4u);
  const uint64_t active8[] = {0xF0, 0x00, 0xFF, 0xFF};
  const uint64_t taken8[] = {0x10, 0x00, 0x00, 0x0F};
  for (uint32_t k = 0; k < 4; ++k) {
    EXPECT_EQ(w8[k].warp, 12 + k);
    EXPECT_EQ(w8[k].active, active8[k]) << k;
    EXPECT_EQ(w8[k].taken, taken8[k]) << k;
  }
  const std::vector<WideBranch> w16 = adapt_branches(events, 16);
  ASSERT_EQ(w16.size(), 2u);
  EXPECT_EQ(w16[0].warp, 6u);
  EXPECT_EQ(w16[0].active, 0x00F0u);
  EXPECT_EQ(w16[0].taken, 0x0010u);
  EXPECT_EQ(w16[1].warp, 7u);
  EXPECT_EQ(w16[1].active, 0xFFFFu);
  EXPECT_EQ(w16[1].taken, 0x0F00u);
  const std::vector<WideBranch> w32 = adapt_branches(events, 32);
  ASSERT_EQ(w32.size(), 1u);
  EXPECT_EQ(w32[0].active, 0xFFFF00F0u);
}

TEST(WidthAdaptation, JoinsPairsAtSixtyFourLanes) {
  const std::vector<BranchEvent> events = {branch(4, 0x1, 0x1), branch(5, 0x80000000u, 0),
                                           branch(6, 0x3, 0x2)};
  const std::vector<WideBranch> w64 = adapt_branches(events, 64);
  ASSERT_EQ(w64.size(), 2u);
  EXPECT_EQ(w64[0].warp, 2u);
  EXPECT_EQ(w64[0].active, 0x8000000000000001u);
  EXPECT_EQ(w64[0].taken, 0x1u);
  EXPECT_EQ(w64[1].warp, 3u);
  EXPECT_EQ(w64[1].active, 0x3u);  // the odd last event is joined with an empty one
  EXPECT_EQ(w64[1].taken, 0x2u);

  std::vector<LoadEvent> loads(3);
  for (uint32_t i = 0; i < 3; ++i) {
    loads[i].active = 1u << i;
    for (uint32_t lane = 0; lane < kTraceWidth; ++lane) loads[i].address[lane] = 1000 * i + lane;
  }
  const std::vector<WideLoad> wide = adapt_loads(loads, 64);
  ASSERT_EQ(wide.size(), 2u);
  ASSERT_EQ(wide[0].address.size(), 64u);
  EXPECT_EQ(wide[0].active, 0x200000001u);
  EXPECT_EQ(wide[0].address[31], 31u);
  EXPECT_EQ(wide[0].address[32], 1000u);
  EXPECT_EQ(wide[1].active, 0x4u);
  EXPECT_EQ(wide[1].address[1], 2001u);
  EXPECT_EQ(wide[1].address[33], 0u);
  const std::vector<WideLoad> narrow = adapt_loads(loads, 8);
  ASSERT_EQ(narrow.size(), 12u);
  EXPECT_EQ(narrow[5].address[0], 1008u);  // event 1, lanes 8..15
  EXPECT_EQ(narrow[5].active, 0u);
  EXPECT_EQ(narrow[4].active, 0x2u);
}

TEST(UnitSchedules, MajorityOneVotePerCycle) {
  const std::vector<BranchEvent> events = {branch(0, 0xFF, 0x0F), branch(1, 0xFF, 0xFF),
                                           branch(2, 0x0F, 0x00)};
  const UnitActivity unit = majority_activity(events, 8);
  EXPECT_EQ(unit.events, 12u);  // each 32-lane event is 4 votes at W = 8
  EXPECT_EQ(unit.cycles, 12u);
  ASSERT_EQ(unit.pins.size(), 16u);
  const auto pins = by_pin(unit.pins);
  // taken[0] over the 12 cycles: 1 0 0 0, 1 0 0 0, 0 0 0 0 -> 4 transitions, 2 ones.
  EXPECT_DOUBLE_EQ(pins.at("taken[0]").first, 4.0 / 12);
  EXPECT_DOUBLE_EQ(pins.at("taken[0]").second, 2.0 / 12);
  // taken[4]: 0 0 0 0, 1 0 0 0, 0 0 0 0 -> 2 transitions, 1 one.
  EXPECT_DOUBLE_EQ(pins.at("taken[4]").first, 2.0 / 12);
  EXPECT_DOUBLE_EQ(pins.at("active[7]").first, 4.0 / 12);
  EXPECT_DOUBLE_EQ(pins.at("active[7]").second, 2.0 / 12);
}

TEST(UnitSchedules, PermutationUsesFirstActiveLaneAndBalancedMode) {
  const std::vector<BranchEvent> events = {branch(1, 0xFF00, 0xF000), branch(2, 0x0, 0x0)};
  const UnitActivity unit = permutation_activity(events, 32);
  EXPECT_EQ(unit.cycles, 2u);
  const auto pins = by_pin(unit.pins);
  EXPECT_EQ(pins.size(), 1u + 1 + 6 + 5 + 2 + 6 + 5 + 32);
  // lane = 8 then 0 (no active lane): lane[3] 0->1->0.
  EXPECT_DOUBLE_EQ(pins.at("lane[3]").first, 1.0);
  EXPECT_DOUBLE_EQ(pins.at("lane[3]").second, 0.5);
  EXPECT_DOUBLE_EQ(pins.at("lane[0]").first, 0.0);
  // warp 1 then 2; mode = 2 throughout (one rise at the start).
  EXPECT_DOUBLE_EQ(pins.at("warp[0]").second, 0.5);
  EXPECT_DOUBLE_EQ(pins.at("warp[1]").second, 0.5);
  EXPECT_DOUBLE_EQ(pins.at("mode[1]").first, 0.5);
  EXPECT_DOUBLE_EQ(pins.at("mode[1]").second, 1.0);
  EXPECT_DOUBLE_EQ(pins.at("mode[0]").second, 0.0);
  EXPECT_DOUBLE_EQ(pins.at("logical_mask[12]").first, 1.0);
  EXPECT_DOUBLE_EQ(pins.at("logical_mask[8]").first, 0.0);
  EXPECT_DOUBLE_EQ(pins.at("wr_en").first + pins.at("rst").second, 0.0);
}

TEST(UnitSchedules, CompactorLoadThenOnePopPerCompactedWarp) {
  CompactionEvent event;
  event.warp_masks = {0x3, 0x1};  // lane 0 pending in both warps: two compacted warps
  UnitActivity unit = compactor_activity({event}, 32);
  EXPECT_EQ(unit.events, 1u);
  EXPECT_EQ(unit.cycles, 3u);  // load, pop, pop
  auto pins = by_pin(unit.pins);
  EXPECT_EQ(pins.size(), 1u + 1 + 16 * 32 + 1);
  EXPECT_DOUBLE_EQ(pins.at("load").first, 2.0 / 3);
  EXPECT_DOUBLE_EQ(pins.at("load").second, 1.0 / 3);
  EXPECT_DOUBLE_EQ(pins.at("pop").first, 1.0 / 3);
  EXPECT_DOUBLE_EQ(pins.at("pop").second, 2.0 / 3);
  EXPECT_DOUBLE_EQ(pins.at("pending_in[32]").first, 1.0 / 3);  // warp 1, lane 0: held through the pops
  EXPECT_DOUBLE_EQ(pins.at("pending_in[32]").second, 1.0);
  EXPECT_DOUBLE_EQ(pins.at("pending_in[33]").second, 0.0);

  // At W = 8 the 64 threads are 8 warps of 8 lanes: thread 32 is warp 4, lane 0; still two pops.
  const std::vector<std::vector<uint64_t>> loads = compactor_loads(event, 8);
  ASSERT_EQ(loads.size(), 1u);
  EXPECT_EQ(loads[0], (std::vector<uint64_t>{0x3, 0, 0, 0, 0x1, 0, 0, 0}));
  unit = compactor_activity({event}, 8);
  EXPECT_EQ(unit.cycles, 3u);
  pins = by_pin(unit.pins);
  EXPECT_DOUBLE_EQ(pins.at("pending_in[32]").second, 1.0);
  EXPECT_DOUBLE_EQ(pins.at("pending_in[1]").second, 1.0);
  EXPECT_DOUBLE_EQ(pins.at("pending_in[8]").second, 0.0);
}

TEST(UnitSchedules, CompactorGroupsSixteenNarrowWarpsAndSkipsEmptyGroups) {
  CompactionEvent event;
  event.warp_masks.assign(16, 0);
  event.warp_masks[15] = 0x80000001u;  // threads 480 and 511
  const std::vector<std::vector<uint64_t>> w8 = compactor_loads(event, 8);
  ASSERT_EQ(w8.size(), 1u);  // 64 warps of 8 in 4 groups; only the last has pending threads
  ASSERT_EQ(w8[0].size(), 16u);
  EXPECT_EQ(w8[0][12], 0x1u);   // thread 480 = warp 60 = group 3, warp 12
  EXPECT_EQ(w8[0][15], 0x80u);  // thread 511 = warp 63, lane 7
  const std::vector<std::vector<uint64_t>> w64 = compactor_loads(event, 64);
  ASSERT_EQ(w64.size(), 1u);
  ASSERT_EQ(w64[0].size(), 8u);
  EXPECT_EQ(w64[0][7], 0x8000000100000000u);
}

TEST(UnitSchedules, SelectorFiguresArePerEvent) {
  std::vector<LoadEvent> loads(2);
  loads[0].active = 0x1;
  loads[0].address[0] = 0x80;
  loads[1].active = 0x3;
  loads[1].address[0] = 0x180;
  loads[1].address[1] = 0x100;
  const UnitActivity unit = selector_activity(loads, 32);
  EXPECT_EQ(unit.events, 2u);
  EXPECT_EQ(unit.cycles, 2u);
  const auto pins = by_pin(unit.pins);
  EXPECT_EQ(pins.size(), 32u * 64 + 32 + 6 + 1 + 1);
  EXPECT_EQ(pins.at("start"), (std::pair{2.0, 1.0}));
  EXPECT_EQ(pins.at("line_shift[0]"), (std::pair{0.5, 1.0}));  // 7 = 000111, set once
  EXPECT_EQ(pins.at("line_shift[3]"), (std::pair{0.0, 0.0}));
  EXPECT_EQ(pins.at("addr_in[7]"), (std::pair{0.5, 1.0}));   // lane 0 bit 7: 1, 1
  EXPECT_EQ(pins.at("addr_in[8]"), (std::pair{0.5, 0.5}));   // lane 0 bit 8: 0, 1
  EXPECT_EQ(pins.at("addr_in[72]"), (std::pair{0.5, 0.5}));  // lane 1 bit 8: 0, 1
  EXPECT_EQ(pins.at("active[1]"), (std::pair{0.5, 0.5}));
  EXPECT_EQ(pins.at("rst"), (std::pair{0.0, 0.0}));
}

TEST(Format, SixDecimalsWithoutTrailingZeros) {
  EXPECT_EQ(format_figure(2.0 / 3), "0.666667");
  EXPECT_EQ(format_figure(1.0), "1");
  EXPECT_EQ(format_figure(0.5), "0.5");
  EXPECT_EQ(format_figure(0.0), "0");
  EXPECT_EQ(format_figure(1e-9), "0");
  EXPECT_EQ(format_figure(2.0), "2");
}

TEST(Format, OneLinePerPort) {
  UnitActivity unit;
  unit.events = 3;
  unit.cycles = 4;
  unit.pins = {{"a[0]", 0.25, 0.5}, {"a[1]", 1.0, 0.0}, {"load", 2.0 / 3, 1.0}};
  EXPECT_EQ(unit_json(unit, 2),
            "{\"events\": 3, \"cycles\": 4, \"pins\": {\n"
            "    \"a[0]\": [0.25, 0.5], \"a[1]\": [1, 0],\n"
            "    \"load\": [0.666667, 1]\n"
            "  }}");
}

}  // namespace
}  // namespace simtlm::cosim::activity
