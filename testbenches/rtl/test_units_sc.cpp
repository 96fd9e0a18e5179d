// Permutation, majority and popular-block units at W=32 as Verilated SystemC modules (--sc), driven through
// sc_signals and compared with the C++ models. SystemC allows one elaboration per process, so ctest runs each
// test alone (gtest_discover_tests ... DISCOVERY_MODE PRE_TEST); this file has its own main for that reason.
#include <gtest/gtest.h>

#include <bit>
#include <systemc>
#include <vector>

#include "Vmajority_unit_w32_sc.h"
#include "Vpopular_block_selector_w32_sc.h"
#include "Vslp_permutation_unit_w32_sc.h"
#include "hw/units/lane_permutation.hpp"
#include "hw/units/majority_unit.hpp"
#include "hw/units/popular_block_selector.hpp"
#include "testbenches/rtl/vectors.hpp"

namespace simtlm::rtl_test {
namespace {

constexpr uint32_t kWidth = 32;
constexpr uint32_t kWarpIds = 64;
const sc_core::sc_time kStep(1, sc_core::SC_NS);

// One rising and one falling edge of `clk`, each followed by a step of simulated time.
void pulse(sc_core::sc_signal<bool>& clk) {
  clk.write(true);
  sc_core::sc_start(kStep);
  clk.write(false);
  sc_core::sc_start(kStep);
}

// A second test in the same process cannot build modules; say so instead of dying in the kernel.
bool claim_elaboration() {
  static bool claimed = false;
  const bool first = !claimed;
  claimed = true;
  return first;
}

TEST(RtlSystemC, PermutationW32) {
  ASSERT_TRUE(claim_elaboration()) << "one SystemC test per process: use --gtest_filter (ctest does)";
  sc_core::sc_signal<bool> clk, rst, wr_en;
  sc_core::sc_signal<uint32_t> wr_warp, wr_mask, mode, warp, lane, logical_mask, xor_mask, home_lane,
      physical_mask;
  Vslp_permutation_unit_w32_sc dut("dut");
  dut.clk(clk);
  dut.rst(rst);
  dut.wr_en(wr_en);
  dut.wr_warp(wr_warp);
  dut.wr_mask(wr_mask);
  dut.mode(mode);
  dut.warp(warp);
  dut.lane(lane);
  dut.logical_mask(logical_mask);
  dut.xor_mask(xor_mask);
  dut.home_lane(home_lane);
  dut.physical_mask(physical_mask);

  auto clock_edge = [&] { pulse(clk); };
  rst.write(true);
  clock_edge();
  rst.write(false);

  hw::PermutationTable model(kWidth, kWarpIds);
  VectorSource source(kWidth);
  auto load_both = [&](uint32_t w) {
    const auto mask = static_cast<uint32_t>(source.below(kWidth));
    model.load(w, mask);
    wr_en.write(true);
    wr_warp.write(w);
    wr_mask.write(mask);
    clock_edge();
    wr_en.write(false);
  };
  for (uint32_t w = 0; w < kWarpIds; ++w) load_both(w);

  const hw::PermutationMode modes[] = {hw::PermutationMode::kTable, hw::PermutationMode::kBalanced,
                                       hw::PermutationMode::kIdentity};
  constexpr int kReads = 20000;
  for (int i = 0; i < kReads; ++i) {
    if (source.below(16) == 0) load_both(static_cast<uint32_t>(source.below(kWarpIds)));
    const hw::PermutationMode m = modes[source.below(3)];
    model.set_mode(m);
    mode.write(static_cast<uint32_t>(m));
    const auto w = static_cast<uint32_t>(source.below(kWarpIds));
    const auto l = static_cast<uint32_t>(source.below(kWidth));
    const uint64_t logical = source.mask(kWidth);
    warp.write(w);
    lane.write(l);
    logical_mask.write(static_cast<uint32_t>(logical));
    sc_core::sc_start(kStep);
    ASSERT_EQ(model.xor_mask(w), xor_mask.read()) << "warp " << w;
    ASSERT_EQ(model.home_lane(w, l), home_lane.read()) << "warp " << w << " lane " << l;
    ASSERT_EQ(model.permute_mask(w, logical), physical_mask.read())
        << "warp " << w << " logical mask 0x" << std::hex << logical;
  }
}

TEST(RtlSystemC, MajorityW32) {
  ASSERT_TRUE(claim_elaboration()) << "one SystemC test per process: use --gtest_filter (ctest does)";
  sc_core::sc_signal<uint32_t> taken, active;
  sc_core::sc_signal<bool> herd_taken, all_taken, none_taken, uniform;
  Vmajority_unit_w32_sc dut("dut");
  dut.taken(taken);
  dut.active(active);
  dut.herd_taken(herd_taken);
  dut.all_taken(all_taken);
  dut.none_taken(none_taken);
  dut.uniform(uniform);

  hw::MajorityUnit model(kWidth);
  VectorSource source(kWidth + 1);
  int ties = 0;
  constexpr int kVectors = 20000;
  for (int i = 0; i < kVectors; ++i) {
    uint64_t t = source.mask(kWidth);
    const uint64_t a = source.mask(kWidth);
    if (i % 4 == 0) {  // half the active lanes taken: an exact tie when the active count is even
      t = source.mask(kWidth) & ~a;  // inactive lanes' outcomes must not matter
      for (uint64_t rest = a; 2 * std::popcount(t & a) < std::popcount(a); rest &= rest - 1)
        t |= rest & (~rest + 1);
    }
    taken.write(static_cast<uint32_t>(t));
    active.write(static_cast<uint32_t>(a));
    sc_core::sc_start(kStep);
    const hw::BranchVote expected = model.vote(t, a);
    const hw::BranchVote got{.herd_taken = herd_taken.read(),
                             .all_taken = all_taken.read(),
                             .none_taken = none_taken.read(),
                             .uniform = uniform.read()};
    ASSERT_EQ(expected, got) << std::hex << "taken=0x" << t << " active=0x" << a;
    ties += a != 0 && 2 * std::popcount(t & a) == std::popcount(a);
  }
  EXPECT_GT(ties, kVectors / 20);
}

// The pipelined selector (ROUNDS = 1) on a clock: done exactly latency_cycles(1) edges after the edge that
// samples start, outputs as the model's, held through idle cycles.
TEST(RtlSystemC, PopularBlockW32) {
  ASSERT_TRUE(claim_elaboration()) << "one SystemC test per process: use --gtest_filter (ctest does)";
  constexpr uint32_t kAddressBits = 64;
  sc_core::sc_signal<bool> clk, rst, start, done, busy;
  sc_core::sc_signal<sc_dt::sc_bv<kWidth * kAddressBits>> addr_in, addr_out;
  sc_core::sc_signal<uint32_t> active, line_shift, count;
  sc_core::sc_signal<uint64_t> block;
  Vpopular_block_selector_w32_sc dut("dut");
  dut.clk(clk);
  dut.rst(rst);
  dut.start(start);
  dut.addr_in(addr_in);
  dut.active(active);
  dut.line_shift(line_shift);
  dut.block(block);
  dut.count(count);
  dut.addr_out(addr_out);
  dut.done(done);
  dut.busy(busy);

  auto clock_edge = [&] { pulse(clk); };
  rst.write(true);
  clock_edge();
  rst.write(false);
  ASSERT_FALSE(done.read());
  ASSERT_FALSE(busy.read());

  const uint32_t latency = hw::PopularBlockSelector::latency_cycles(1);
  hw::PopularBlockSelector model(kWidth);
  VectorSource source(kWidth + 2);
  sc_dt::sc_bv<kWidth * kAddressBits> addresses;
  std::vector<uint64_t> address(kWidth);
  constexpr int kVectors = 5000;
  int herded = 0;
  for (int i = 0; i < kVectors; ++i) {
    const auto shift = static_cast<uint32_t>(2 + source.below(8));
    const uint64_t offset_mask = (uint64_t{1} << shift) - 1;
    std::vector<uint64_t> blocks(1 + source.below(source.below(2) ? 4 : kWidth));
    for (uint64_t& base : blocks) base = source.bits() & ~offset_mask;
    for (uint32_t lane = 0; lane < kWidth; ++lane) {
      address[lane] = blocks[source.below(blocks.size())] | (source.bits() & offset_mask);
      addresses.set_word(2 * lane, static_cast<sc_dt::sc_digit>(address[lane]));
      addresses.set_word(2 * lane + 1, static_cast<sc_dt::sc_digit>(address[lane] >> 32));
    }
    const uint64_t a = source.mask(kWidth);
    addr_in.write(addresses);
    active.write(static_cast<uint32_t>(a));
    line_shift.write(shift);
    start.write(true);
    clock_edge();  // edge 0 samples start
    start.write(false);
    for (uint32_t edge = 1; edge <= latency; ++edge) {
      ASSERT_FALSE(done.read()) << "vector " << i << ": done after edge " << edge - 1 << " of " << latency;
      ASSERT_TRUE(busy.read()) << "vector " << i << " edge " << edge - 1;
      clock_edge();
    }
    ASSERT_TRUE(done.read()) << "vector " << i << ": done not high after edge " << latency;
    ASSERT_FALSE(busy.read());
    if (i % 16 == 0) clock_edge();  // an idle cycle: the outputs hold
    const hw::HerdedLoad expected = model.select(address, a, shift);
    hw::HerdedLoad got;
    got.block = block.read();
    got.count = count.read();
    const auto& herded_addresses = addr_out.read();
    for (uint32_t lane = 0; lane < kWidth; ++lane) {
      got.address[lane] = uint64_t{herded_addresses.get_word(2 * lane)} |
                          uint64_t{herded_addresses.get_word(2 * lane + 1)} << 32;
    }
    ASSERT_EQ(expected, got) << "vector " << i << std::hex << " active=0x" << a;
    herded += expected.count > 0 && expected.count < static_cast<uint32_t>(std::popcount(a));
  }
  EXPECT_GT(herded, kVectors / 10);
}

}  // namespace
}  // namespace simtlm::rtl_test

int sc_main(int, char**) {
  return RUN_ALL_TESTS();
}

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return sc_core::sc_elab_and_sim(argc, argv);
}
