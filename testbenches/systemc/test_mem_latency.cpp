// Exact latencies through L1 -> crossbar -> L2 -> DRAM with the parameters of mem_chain.hpp.
// A cold 32 B read: L1 miss_latency 1 + crossbar 2 + L2 miss_latency 2 + DRAM + L2 fill 2
//                   + crossbar 2 + 1 (32 B at 32 B/cycle) + L1 fill 1.
// DRAM from an idle bank: tRCD 5 + tCL 6 + BL/2 4 = 15; row hit: 6 + 4 = 10;
// row conflict: tRP 4 + tRCD 5 + tCL 6 + 4 = 19 once tRAS has passed.
#include <gtest/gtest.h>

#include "testbenches/systemc/mem_chain.hpp"

namespace simtlm::mem::test {
namespace {

constexpr auto R = tlm::TLM_READ_COMMAND;
constexpr auto W = tlm::TLM_WRITE_COMMAND;

TEST(MemLatency, L1HitMissAndDramRows) {
  Chain c;
  c.tg.script = {{0, R, 0},        // cold: DRAM row empty      11 + 15 = 26
                 {100, R, 0},      // L1 hit                    4
                 {200, R, 32},     // L1/L2 sector miss, DRAM row hit    11 + 10 = 21
                 {300, R, 8192}};  // same DRAM bank, other row: conflict 11 + 19 = 30
  sc_core::sc_start();
  EXPECT_EQ(c.tg.latency(0), 26);
  EXPECT_EQ(c.tg.latency(1), 4);
  EXPECT_EQ(c.tg.latency(2), 21);
  EXPECT_EQ(c.tg.latency(3), 30);
  EXPECT_EQ(c.l1.stats().hits, 1u);
  EXPECT_EQ(c.l1.stats().misses, 3u);
  EXPECT_EQ(c.dram->stats().row_hits, 1u);
  EXPECT_EQ(c.dram->stats().row_misses, 2u);
  EXPECT_EQ(c.dram->stats().bytes, 96u);
  EXPECT_EQ(c.dram->stats_json()["latency_max_cycles"], 19.0);
}

TEST(MemLatency, RowConflictWaitsForTras) {
  Chain c;
  // Second read reaches DRAM at 6 while row 0 (activated at 5) is open: precharge waits for
  // tRAS (5 + 12 = 17), ACT at 21, column at 26, data done at 36; back at the SM at 42.
  c.tg.script = {{0, R, 0}, {1, R, 8192}};
  sc_core::sc_start();
  EXPECT_EQ(c.tg.latency(0), 26);
  EXPECT_EQ(c.tg.latency(1), 41);
}

TEST(MemLatency, L2HitWithL1Disabled) {
  Chain c;
  c.l1.disable_fraction(1.0);  // every access passes the L1 uncached
  c.tg.script = {{0, R, 0}, {100, R, 0}};
  sc_core::sc_start();
  EXPECT_EQ(c.tg.latency(0), 26);
  // L1 1 + crossbar 2 + L2 hit 10 + crossbar 2 + 1 + L1 fill 1.
  EXPECT_EQ(c.tg.latency(1), 17);
  EXPECT_EQ(c.l1.stats().bypasses, 2u);
  EXPECT_EQ(c.l2.stats().hits, 1u);
}

// A coherent load (ld.volatile, ld.acquire.gpu, ...) passes the L1 as through a disabled set: it reads the
// L2 even when the L1 holds its line, and allocates nothing there.
TEST(MemLatency, CoherentReadsPassTheL1) {
  Chain c;
  c.tg.script = {{0, R, 0},
                 {100, R, 0},                 // L1 hit
                 {200, R, 0, 32, {}, true},   // coherent: the L2's copy, though the L1 has it
                 {300, R, 64, 32, {}, true},  // coherent, cold sector: DRAM row hit
                 {400, R, 64}};               // the coherent read left nothing in the L1: L2 hit
  sc_core::sc_start();
  EXPECT_EQ(c.tg.latency(1), 4);
  EXPECT_EQ(c.tg.latency(2), 17);
  EXPECT_EQ(c.tg.latency(3), 21);
  EXPECT_EQ(c.tg.latency(4), 17);
  EXPECT_EQ(c.tg.l1_marks[2], 0);  // looked up, not a hit: dynamic warp subdivision sees a miss
  EXPECT_EQ(c.l1.stats().reads, 5u);
  EXPECT_EQ(c.l1.stats().hits, 1u);
  EXPECT_EQ(c.l1.stats().misses, 2u);
  EXPECT_EQ(c.l1.stats().bypasses, 2u);
  EXPECT_EQ(c.l1.stats().down_reads, 4u);
  EXPECT_EQ(c.l2.stats().hits, 2u);
}

TEST(MemLatency, DisableFractionSpreadsOverSets) {
  Chain c;
  c.l1.disable_fraction(0.25);  // way 3 of all 8 sets
  // Five lines of set 0: with 3 ways left, the first two are evicted and miss again.
  c.tg.script = {{0, R, 0},   {100, R, 1024}, {200, R, 2048}, {300, R, 3072},
                 {400, R, 0}, {500, R, 1024}, {600, R, 3072}};
  sc_core::sc_start();
  EXPECT_EQ(c.l1.stats().hits, 1u);  // only 3072 is still there
  EXPECT_EQ(c.l1.stats().misses, 6u);
}

TEST(MemLatency, FixedLatencyDram) {
  Chain c(test_l1(), true, [] {
    DramParams p = test_dram();
    p.fixed_latency_mode = true;
    p.fixed_latency = 300;
    return p;
  }());
  c.tg.script = {{0, R, 0}, {1, R, 8192}, {2, R, 4096}};
  sc_core::sc_start();
  EXPECT_EQ(c.tg.latency(0), 311);  // 11 + 300
  EXPECT_EQ(c.tg.latency(1), 311);  // no bank or row effects, full overlap
  EXPECT_EQ(c.tg.latency(2), 311);
  EXPECT_EQ(c.dram->stats().row_hits + c.dram->stats().row_misses, 0u);
  EXPECT_EQ(c.dram->stats_json()["queue_max"], 3);
}

TEST(MemLatency, L1BankConflictCostsACycle) {
  Chain c;
  // Lines 0 and 512 are both in L1 bank 0 (line index 0 and 4, 4 banks). Warm both, then hit both at 100.
  c.tg.script = {{0, R, 0}, {50, R, 512}, {100, R, 0}, {100, R, 512}};
  sc_core::sc_start();
  EXPECT_EQ(c.tg.latency(2), 4);
  EXPECT_EQ(c.tg.latency(3), 5);
  EXPECT_EQ(c.l1.stats().bank_conflicts, 1u);
}

TEST(MemLatency, StoresRespondAfterHitLatency) {
  Chain c;
  c.tg.script = {{0, W, 0}, {10, W, 0}};
  sc_core::sc_start();
  EXPECT_EQ(c.tg.latency(0), 4);
  EXPECT_EQ(c.tg.latency(1), 4);
}

}  // namespace
}  // namespace simtlm::mem::test
