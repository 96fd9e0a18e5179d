// popular_block_selector.v (pipelined over ROUNDS cycles) against hw::PopularBlockSelector: every lane
// partition at W = 8, clustered random addresses at every width, and the loads recorded from the workload
// suite at W = 32 and 64. The twin (RtlBlockSelector) checks the handshake on every selection: done low after
// the edge that samples start and each following edge but the last, high after exactly
// PopularBlockSelector::latency_cycles(ROUNDS) edges.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <initializer_list>
#include <iostream>
#include <sstream>
#include <vector>

#include "Vpopular_block_selector_w16.h"
#include "Vpopular_block_selector_w32.h"
#include "Vpopular_block_selector_w32_r4.h"
#include "Vpopular_block_selector_w64.h"
#include "Vpopular_block_selector_w64_r8.h"
#include "Vpopular_block_selector_w8.h"
#include "Vpopular_block_selector_w8_a32.h"
#include "Vpopular_block_selector_w8_r4.h"
#include "Vpopular_block_selector_w8_r8.h"
#include "hw/units/select/rtl_twins.hpp"
#include "testbenches/rtl/cosim/workload_trace.hpp"
#include "testbenches/rtl/vectors.hpp"

namespace simtlm::rtl_test {
namespace {

using hw::rtl::RtlBlockSelector;

std::string describe_inputs(std::span<const uint64_t> address, uint64_t active, uint32_t line_shift) {
  std::ostringstream text;
  text << std::hex << "active=0x" << active << std::dec << " line_shift=" << line_shift << " address=[";
  for (uint64_t a : address) text << " " << std::hex << a;
  text << " ]";
  return text.str();
}

// One selection on both; on a mismatch, a gtest failure naming the inputs and both answers.
template <typename V>
::testing::AssertionResult agree(hw::PopularBlockSelector& model, RtlBlockSelector<V>& rtl,
                                 std::span<const uint64_t> address, uint64_t active, uint32_t line_shift) {
  const hw::HerdedLoad expected = model.select(address, active, line_shift);
  const hw::HerdedLoad got = rtl.select(address, active, line_shift);
  if (expected == got) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << describe_inputs(address, active, line_shift) << "\nmodel " << ::testing::PrintToString(expected)
         << "\nrtl   " << ::testing::PrintToString(got);
}

// Calls `visit(lane_block)` for every partition of `lanes` lanes into blocks, as restricted growth strings:
// lane 0 is in block 0 and each later lane joins a block already used or opens the next one.
template <typename Visit>
void for_each_partition(uint32_t lanes, Visit visit) {
  std::vector<uint32_t> lane_block(lanes, 0);
  auto extend = [&](auto& self, uint32_t lane, uint32_t blocks_used) -> void {
    if (lane == lanes) {
      visit(lane_block);
      return;
    }
    for (uint32_t b = 0; b <= blocks_used && b < lanes; ++b) {
      lane_block[lane] = b;
      self(self, lane + 1, b == blocks_used ? blocks_used + 1 : blocks_used);
    }
  };
  extend(extend, 1, 1);
}

// W = 8: every partition of the lanes into blocks (4140) under every active mask (256), with random distinct
// block ids, random offsets and a random line shift per partition.
template <typename V>
void exhaustive_w8(uint32_t rounds, uint64_t seed) {
  constexpr uint32_t kWidth = 8;
  hw::PopularBlockSelector model(kWidth);
  RtlBlockSelector<V> rtl(kWidth, 64, rounds);
  VectorSource source(seed);
  uint64_t partitions = 0;
  uint64_t ties = 0;
  for_each_partition(kWidth, [&](const std::vector<uint32_t>& lane_block) {
    ++partitions;
    // At least 3 block bits above the shift, so that 8 blocks can be distinct.
    const auto line_shift = static_cast<uint32_t>(source.below(62));
    const uint64_t offset_mask = (uint64_t{1} << line_shift) - 1;
    std::vector<uint64_t> block_id;
    while (block_id.size() < kWidth) {
      const uint64_t id = source.bits() >> line_shift;
      if (std::find(block_id.begin(), block_id.end(), id) == block_id.end()) block_id.push_back(id);
    }
    std::vector<uint64_t> address(kWidth);
    for (uint32_t lane = 0; lane < kWidth; ++lane) {
      address[lane] = (block_id[lane_block[lane]] << line_shift) | (source.bits() & offset_mask);
    }
    for (uint64_t active = 0; active < (uint64_t{1} << kWidth); ++active) {
      ASSERT_TRUE(agree(model, rtl, address, active, line_shift)) << "partition " << partitions;
      // A tie: two blocks share the largest active count.
      uint32_t per_block[kWidth] = {};
      for (uint32_t lane = 0; lane < kWidth; ++lane) per_block[lane_block[lane]] += (active >> lane) & 1;
      const uint32_t best = *std::max_element(per_block, per_block + kWidth);
      ties += best > 0 && std::count(per_block, per_block + kWidth, best) > 1;
    }
  });
  EXPECT_EQ(partitions, 4140u) << "Bell number B(8)";
  EXPECT_GT(ties, partitions * 256 / 10);
}

TEST(RtlPopularBlock, W8EveryPartitionAndMaskOneRound) {
  exhaustive_w8<Vpopular_block_selector_w8>(1, 81);
}
TEST(RtlPopularBlock, W8EveryPartitionAndMaskFourRounds) {
  exhaustive_w8<Vpopular_block_selector_w8_r4>(4, 84);
}
TEST(RtlPopularBlock, W8EveryPartitionAndMaskEightRounds) {
  exhaustive_w8<Vpopular_block_selector_w8_r8>(8, 88);
}

// Lanes pick among a few blocks (so counts collide and ties happen) or up to one per lane, with random
// offsets inside the block.
std::vector<uint64_t> clustered_addresses(VectorSource& source, uint32_t width, uint32_t line_shift) {
  const uint64_t offset_mask = (uint64_t{1} << line_shift) - 1;
  std::vector<uint64_t> blocks(1 + source.below(source.below(2) ? 4 : width));
  for (uint64_t& base : blocks) base = source.bits() & ~offset_mask;
  std::vector<uint64_t> address(width);
  for (uint64_t& a : address) a = blocks[source.below(blocks.size())] | (source.bits() & offset_mask);
  return address;
}

// Whether another block has as many active lanes as the winner (so the tie rule decided).
bool is_tie(const std::vector<uint64_t>& address, uint64_t active, uint32_t line_shift, uint32_t address_bits,
            const hw::HerdedLoad& winner) {
  const uint64_t address_mask = address_bits == 64 ? ~uint64_t{0} : (uint64_t{1} << address_bits) - 1;
  auto block_of = [&](size_t lane) { return (address[lane] & address_mask) >> line_shift; };
  for (size_t lane = 0; lane < address.size(); ++lane) {
    if (!((active >> lane) & 1) || block_of(lane) == winner.block) continue;
    uint32_t count = 0;
    for (size_t other = 0; other < address.size(); ++other) {
      count += ((active >> other) & 1) && block_of(other) == block_of(lane);
    }
    if (count == winner.count) return true;
  }
  return false;
}

template <typename V>
void random_equivalence(uint32_t width, uint32_t address_bits, uint32_t rounds, uint64_t vectors) {
  hw::PopularBlockSelector model(width, address_bits);
  RtlBlockSelector<V> rtl(width, address_bits, rounds);
  VectorSource source(width + address_bits + rounds);
  uint64_t ties = 0;
  uint64_t herded = 0;
  uint64_t idle = 0;
  for (uint64_t i = 0; i < vectors; ++i) {
    // Mostly cache-line-like shifts, sometimes any legal shift.
    const auto line_shift =
        static_cast<uint32_t>(source.below(4) ? 2 + source.below(7) : source.below(address_bits));
    const std::vector<uint64_t> address = clustered_addresses(source, width, line_shift);
    const uint64_t active = source.mask(width);
    ASSERT_TRUE(agree(model, rtl, address, active, line_shift)) << "vector " << i;
    const hw::HerdedLoad expected = model.select(address, active, line_shift);
    herded += expected.count > 0 && expected.count < static_cast<uint32_t>(std::popcount(active));
    ties += is_tie(address, active, line_shift, address_bits, expected);
    idle += active == 0;
    if (i % 64 == 0) {  // a finished selection holds through idle cycles
      rtl.idle_cycle();
      rtl.idle_cycle();
      ASSERT_TRUE(rtl.done()) << "vector " << i;
      ASSERT_EQ(rtl.outputs(), expected) << "vector " << i << " after two idle cycles";
    }
  }
  EXPECT_GT(ties, vectors / 20) << "the stimulus rarely produced a tie";
  EXPECT_GT(herded, vectors / 10) << "too few vectors needed herding";
  EXPECT_GT(idle, 0u) << "no vector without an active lane";
}

TEST(RtlPopularBlock, W8Address32Random) {
  random_equivalence<Vpopular_block_selector_w8_a32>(8, 32, 1, 100000);
}
TEST(RtlPopularBlock, W16Random) {
  random_equivalence<Vpopular_block_selector_w16>(16, 64, 1, 50000);
}
TEST(RtlPopularBlock, W32Random) {
  random_equivalence<Vpopular_block_selector_w32>(32, 64, 1, 30000);
}
TEST(RtlPopularBlock, W32FourRoundsRandom) {
  random_equivalence<Vpopular_block_selector_w32_r4>(32, 64, 4, 30000);
}
TEST(RtlPopularBlock, W64Random) {
  random_equivalence<Vpopular_block_selector_w64>(64, 64, 1, 8000);
}
TEST(RtlPopularBlock, W64EightRoundsRandom) {
  random_equivalence<Vpopular_block_selector_w64_r8>(64, 64, 8, 4000);
}

// The loads of every workload of the suite (32 lanes each), with 128-byte lines (and 32-byte sectors for the
// twins' ROUNDS = 1 build). At W = 64 two consecutive loads of the trace form one 64-lane vector (lanes 0..31
// and 32..63).
template <typename V>
void workload_equivalence(uint32_t width, uint32_t rounds, std::initializer_list<uint32_t> line_shifts) {
  hw::PopularBlockSelector model(width);
  RtlBlockSelector<V> rtl(width, 64, rounds);
  const uint32_t events_per_vector = width / cosim::kTraceWidth;
  uint64_t vectors = 0;
  uint64_t herded = 0;
  uint32_t workloads_with_loads = 0;
  for (const std::string& name : cosim::suite_workloads()) {
    const cosim::WorkloadTrace trace = cosim::record_workload(SIMTLM_SOURCE_DIR, name);
    workloads_with_loads += !trace.loads.empty();  // some kernels (julia) load nothing from global memory
    std::vector<uint64_t> address(width);
    for (size_t first = 0; first + events_per_vector <= trace.loads.size(); first += events_per_vector) {
      uint64_t active = 0;
      for (uint32_t part = 0; part < events_per_vector; ++part) {
        const cosim::LoadEvent& event = trace.loads[first + part];
        std::copy(event.address.begin(), event.address.end(), address.begin() + part * cosim::kTraceWidth);
        active |= uint64_t{event.active} << (part * cosim::kTraceWidth);
      }
      for (const uint32_t line_shift : line_shifts) {
        ASSERT_TRUE(agree(model, rtl, address, active, line_shift)) << name << " load " << first;
        const hw::HerdedLoad expected = model.select(address, active, line_shift);
        herded += expected.count < static_cast<uint32_t>(std::popcount(active));
        ++vectors;
      }
    }
  }
  std::cout << "W=" << width << " ROUNDS=" << rounds << ": " << vectors << " workload vectors, " << herded
            << " needed herding\n";
  EXPECT_GE(workloads_with_loads, 10u);
  EXPECT_GT(vectors, 1000u);
  EXPECT_GT(herded, 0u) << "no recorded load spread over several blocks";
}

TEST(RtlPopularBlock, W32WorkloadLoads) {
  workload_equivalence<Vpopular_block_selector_w32>(32, 1, {7, 5});
}
TEST(RtlPopularBlock, W32FourRoundsWorkloadLoads) {
  workload_equivalence<Vpopular_block_selector_w32_r4>(32, 4, {7});
}
TEST(RtlPopularBlock, W64PairedWorkloadLoads) {
  workload_equivalence<Vpopular_block_selector_w64>(64, 1, {7, 5});
}
TEST(RtlPopularBlock, W64EightRoundsPairedWorkloadLoads) {
  workload_equivalence<Vpopular_block_selector_w64_r8>(64, 8, {7});
}

// The handshake itself, cycle by cycle: nothing before start, busy for exactly the latency, a start during a
// selection restarts it, and reset clears the outputs.
TEST(RtlPopularBlock, HandshakeCycleByCycle) {
  hw::rtl::SingleThreadContext context;
  Vpopular_block_selector_w8_r4 top(&context);
  const uint32_t latency = hw::PopularBlockSelector::latency_cycles(4);
  ASSERT_EQ(latency, 5u);
  top.rst = 1;
  hw::rtl::clock_edge(top);
  top.rst = 0;
  // Lanes 0..2 in block 0x10, lanes 3..7 in block 0x20: block 0x20 wins with 5 lanes.
  const uint64_t address[8] = {0x400, 0x404, 0x408, 0x800, 0x804, 0x808, 0x80c, 0x810};
  for (uint32_t lane = 0; lane < 8; ++lane) hw::rtl::put_bits(top.addr_in, lane * 64, 64, address[lane]);
  top.active = 0xff;
  top.line_shift = 6;
  hw::rtl::clock_edge(top);
  EXPECT_FALSE(top.busy) << "no start, no work";
  EXPECT_FALSE(top.done);
  top.start = 1;
  hw::rtl::clock_edge(top);
  top.start = 0;
  hw::rtl::clock_edge(top);  // edge 1
  top.start = 1;             // abandon it: a new selection starts at edge 2
  hw::rtl::clock_edge(top);
  top.start = 0;
  for (uint32_t edge = 1; edge <= latency; ++edge) {
    EXPECT_TRUE(top.busy) << "edge " << edge - 1;
    EXPECT_FALSE(top.done) << "edge " << edge - 1;
    hw::rtl::clock_edge(top);
  }
  EXPECT_TRUE(top.done);
  EXPECT_FALSE(top.busy);
  EXPECT_EQ(top.count, 5u);
  EXPECT_EQ(hw::rtl::get_bits(top.block, 0, 64), 0x20u);
  EXPECT_EQ(hw::rtl::get_bits(top.addr_out, 0, 64), 0x800u) << "lane 0 moved into the winner, offset kept";
  EXPECT_EQ(hw::rtl::get_bits(top.addr_out, 2 * 64, 64), 0x808u);
  top.rst = 1;
  hw::rtl::clock_edge(top);
  EXPECT_FALSE(top.done);
  EXPECT_EQ(top.count, 0u);
  EXPECT_EQ(hw::rtl::get_bits(top.block, 0, 64), 0u);
  EXPECT_EQ(hw::rtl::get_bits(top.addr_out, 3 * 64, 64), 0x800u) << "no winner: addresses pass through";
}

}  // namespace
}  // namespace simtlm::rtl_test
