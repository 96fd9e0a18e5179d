// The kernel-end write-back of dirty lines and the L2's atomic unit, on the small chain of mem_chain.hpp.
#include <gtest/gtest.h>

#include "testbenches/systemc/mem_chain.hpp"

namespace simtlm::mem::test {
namespace {

constexpr auto R = tlm::TLM_READ_COMMAND;
constexpr auto W = tlm::TLM_WRITE_COMMAND;

TEST(MemFlush, WriteBackLeavesLinesValidAndClean) {
  Chain c;
  // Three stores reach the (write-back, write-validate) L2 through the write-through L1: lines 0 and 1024
  // get one dirty sector each, line 2048 two adjacent ones (one 64-byte burst).
  c.tg.script = {{0, W, 0}, {1, W, 1024 + 32}, {2, W, 2048, 64}, {3, R, 4096}};
  sc_core::sc_start();
  EXPECT_EQ(c.dram->stats().writes, 0u);  // nothing evicted
  EXPECT_TRUE(c.l2.dirty(1024));
  EXPECT_EQ(c.l2.write_back_dirty(), 3u);
  sc_core::sc_start();
  EXPECT_TRUE(c.l2.idle());
  EXPECT_EQ(c.dram->stats().writes, 3u);
  EXPECT_EQ(c.dram->stats().write_bytes, 32u + 32u + 64u);
  EXPECT_EQ(c.l2.stats().flush_writebacks, 3u);
  EXPECT_EQ(c.l2.stats().flush_bytes, 128u);
  EXPECT_EQ(c.l2.stats().writebacks, 0u);  // evictions only
  for (uint64_t line : {0, 1024, 2048, 4096}) {
    EXPECT_TRUE(c.l2.contains(line)) << line;
    EXPECT_FALSE(c.l2.dirty(line)) << line;
  }
  // Clean lines are not written twice.
  EXPECT_EQ(c.l2.write_back_dirty(), 0u);
}

// tg -> L1 (no atomic unit) -> crossbar -> L2 with an atomic unit of 5 cycles per operation on a word.
struct AtomicChain {
  TrafficGen tg{"tg"};
  L1Cache l1{"l1", test_l1()};
  Crossbar xbar{"xbar", test_xbar()};
  L2Cache l2{"l2", with_atomic_unit(test_l2())};
  Dram dram{"dram", test_dram()};
  AtomicChain() {
    tg.out.bind(l1.in);
    l1.out.bind(xbar.in);
    xbar.out.bind(l2.in);
    l2.out.bind(dram.in);
  }
  static CacheParams with_atomic_unit(CacheParams p) {
    p.atomic_cycles = 5;
    return p;
  }
};

std::vector<AtomicTarget> distinct_words(uint64_t base, uint32_t n) {
  std::vector<AtomicTarget> t;
  for (uint32_t i = 0; i < n; ++i) t.push_back({base + 4 * i, 1});
  return t;
}

TEST(MemAtomic, OperationsOnOneWordAreSerialised) {
  AtomicChain c;
  c.tg.script = {
      {0, R, 0, 4, {{0, 1}}},                 // misses in the L2: fetches the sector, then one operation
      {200, R, 0, 4, {{0, 1}}},               // a hit: one operation
      {400, R, 0, 4, {{0, 32}}},              // 32 lanes on one word: 32 operations 5 cycles apart
      {600, R, 0, 32, distinct_words(0, 8)},  // 8 words of one sector: the unit issues one per cycle
  };
  sc_core::sc_start();
  const double one = c.tg.latency(1);
  EXPECT_EQ(c.tg.latency(2) - one, 31 * 5);
  EXPECT_EQ(c.tg.latency(3) - one, 7);
  EXPECT_GT(c.tg.latency(0), one);  // the first waited for DRAM
  EXPECT_EQ(c.l1.stats().atomics, 4u);
  EXPECT_EQ(c.l1.stats().hits + c.l1.stats().misses, 0u);  // passed through
  EXPECT_FALSE(c.l1.contains(0));
  EXPECT_EQ(c.l2.stats().atomics, 4u);
  EXPECT_EQ(c.l2.stats().atomic_operations, 1u + 1u + 32u + 8u);
  EXPECT_EQ(c.l2.stats().misses, 1u);
  EXPECT_EQ(c.l2.stats().hits, 3u);
  EXPECT_EQ(c.l2.stats().reads, 0u);
  EXPECT_TRUE(c.l2.dirty(0));  // an atomic writes its word
  EXPECT_EQ(c.dram.stats().reads, 1u);
}

TEST(MemAtomic, WaitsForTheWordAcrossRequests) {
  AtomicChain c;
  // Two requests of 8 operations on one word, one cycle apart: the second's first operation waits for
  // the first's last one.
  c.tg.script = {{0, R, 64, 4, {{64, 1}}}, {300, R, 64, 4, {{64, 8}}}, {301, R, 64, 4, {{64, 8}}}};
  sc_core::sc_start();
  // The second request's operations run 5 cycles apart from its data; the third's start 5 cycles after the
  // second's last, so it is answered 8 x 5 = 40 cycles after the second.
  EXPECT_EQ(c.tg.responded[2] - c.tg.responded[1], 8 * 5);
  EXPECT_EQ(c.l2.stats().atomic_operations, 17u);
}

}  // namespace
}  // namespace simtlm::mem::test
