// MSHR merging, back-pressure, write policies, FR-FCFS, several ports, and a third-party LT target.
#include <gtest/gtest.h>
#include <tlm_utils/simple_target_socket.h>

#include <algorithm>
#include <cstring>

#include "testbenches/systemc/mem_chain.hpp"

namespace simtlm::mem::test {
namespace {

constexpr auto R = tlm::TLM_READ_COMMAND;
constexpr auto W = tlm::TLM_WRITE_COMMAND;

TEST(MemBehaviour, MshrMergesRequestsToOneLine) {
  Chain c;
  // 0, 0 and 16 need sector 0, already requested: they merge. 64 needs sector 2, which the MSHR does not
  // cover, so it waits for the fill (reservation failure) and then misses on its own.
  c.tg.script = {{0, R, 0}, {1, R, 0}, {2, R, 16, 16}, {3, R, 64}};
  sc_core::sc_start();
  EXPECT_EQ(c.tg.responded[0], 26);
  EXPECT_EQ(c.tg.responded[1], 26);
  EXPECT_EQ(c.tg.responded[2], 26);
  EXPECT_EQ(c.tg.accepted[3], 25);  // END_REQ when the fill frees the MSHR
  // Fill request leaves at 26, L2 at 28, DRAM (row hit, bus idle) 30..40, back at the SM at 46.
  EXPECT_EQ(c.tg.responded[3], 46);
  EXPECT_EQ(c.l1.stats().mshr_merges, 2u);
  EXPECT_EQ(c.l1.stats().reservation_failures, 1u);
  EXPECT_EQ(c.dram->stats().reads, 2u);
}

TEST(MemBehaviour, TheL1MarksWhetherItHeldEachRequest) {
  Chain c;
  // A miss, a merge into its MSHR (a miss too), then a read and a store of the filled line, and a miss
  // elsewhere; dynamic warp subdivision splits a warp on these marks (hw/sc/sm_memory.cpp).
  c.tg.script = {{0, R, 0}, {1, R, 0}, {60, R, 0}, {61, W, 0}, {62, R, 4096}};
  sc_core::sc_start();
  EXPECT_EQ(c.tg.l1_marks, (std::vector<int>{0, 0, 1, 1, 0}));
}

TEST(MemBehaviour, FullMshrsBackPressure) {
  Chain c;  // 4 L1 MSHRs
  c.tg.script = {{0, R, 0}, {0, R, 128}, {0, R, 256}, {0, R, 384}, {0, R, 512}};
  sc_core::sc_start();
  // Fills leave the L1 at 1; the crossbar takes one request header per cycle (1, 2, 3, 4); DRAM serves
  // bank 0 row 0: ACT 5, columns at 10, 14, 18, 22 (one 4-clock burst each).
  EXPECT_EQ(c.tg.responded[0], 26);
  EXPECT_EQ(c.tg.responded[1], 30);
  EXPECT_EQ(c.tg.responded[2], 34);
  EXPECT_EQ(c.tg.responded[3], 38);
  EXPECT_EQ(c.tg.accepted[3], 0);
  EXPECT_EQ(c.tg.accepted[4], 25);   // withheld END_REQ until the first fill
  EXPECT_EQ(c.tg.responded[4], 46);  // then as in the merge test: DRAM row hit 30..40
  EXPECT_EQ(c.l1.stats().reservation_failures, 1u);
  EXPECT_EQ(c.xbar.port_stats()[0].stalls, 3u);
  EXPECT_EQ(c.dram->stats().row_hits, 4u);
  EXPECT_EQ(c.dram->stats().row_misses, 1u);
}

// Five stores to lines of L1 set 0 (4 ways).
std::vector<Access> five_stores() {
  return {{0, W, 0}, {10, W, 1024}, {20, W, 2048}, {30, W, 3072}, {40, W, 4096}};
}

TEST(MemBehaviour, WriteThroughSendsEveryStore) {
  Chain c;
  c.tg.script = five_stores();
  sc_core::sc_start();
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(c.tg.latency(i), 4);
  EXPECT_EQ(c.l1.stats().down_writes, 5u);
  EXPECT_EQ(c.l1.stats().writebacks, 0u);
  EXPECT_EQ(c.xbar.port_stats()[0].req_bytes, 160u);
  EXPECT_FALSE(c.l1.contains(0));  // no allocation
  EXPECT_EQ(c.l2.stats().writes, 5u);
  EXPECT_EQ(c.dram->stats().writes, 0u);  // L2 is write-back
}

TEST(MemBehaviour, WriteBackSendsOnlyEvictions) {
  CacheParams p = test_l1();
  p.write_policy = WritePolicy::kWriteBackAllocate;
  Chain c(p);
  c.tg.script = five_stores();
  sc_core::sc_start();
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(c.tg.latency(i), 4);
  EXPECT_EQ(c.l1.stats().writebacks, 1u);  // line 0, the LRU one
  EXPECT_EQ(c.l1.stats().down_writes, 1u);
  EXPECT_FALSE(c.l1.contains(0));
  EXPECT_TRUE(c.l1.contains(4096));
  EXPECT_EQ(c.l2.stats().writes, 1u);
}

TEST(MemBehaviour, FrFcfsServesRowHitBeforeOlderMiss) {
  TrafficGen tg("tg");
  Dram dram("dram", test_dram());
  tg.out.bind(dram.in);
  // A opens row 0 of bank 0; B (older) needs row 1, C (younger) hits row 0.
  tg.script = {{0, R, 0}, {1, R, 8192}, {2, R, 64}};
  sc_core::sc_start();
  EXPECT_EQ(tg.responded[0], 15);  // ACT 0, column 5, data 5 + 6 + 4
  EXPECT_EQ(tg.responded[2], 19);  // column 9 (bus busy 5..9), 9 + 10
  EXPECT_EQ(tg.responded[1], 31);  // PRE at tRAS 12, ACT 16, column 21, 21 + 10
  EXPECT_EQ(dram.stats().row_hits, 1u);
  EXPECT_EQ(dram.stats().row_misses, 2u);
  EXPECT_EQ(dram.stats_json()["queue_max"], 3);  // A waits for its column until 5
}

TEST(MemBehaviour, DramQueueFullBackPressure) {
  TrafficGen tg("tg");
  DramParams p = test_dram();
  p.queue_depth = 2;
  Dram dram("dram", p);
  tg.out.bind(dram.in);
  tg.script = {{0, R, 0}, {1, R, 8192}, {2, R, 64}};
  sc_core::sc_start();
  EXPECT_EQ(tg.accepted[2], 5);  // END_REQ when A's column access leaves the queue
  EXPECT_EQ(tg.responded[0], 15);
  EXPECT_EQ(tg.responded[2], 19);  // still ahead of the older row miss
  EXPECT_EQ(tg.responded[1], 31);
  EXPECT_EQ(dram.stats().rejections, 1u);
}

TEST(MemBehaviour, DramFixedLatencyMode) {
  TrafficGen tg("tg");
  FixedLatencyDram dram("dram", DramParams::fixed(300));
  tg.out.bind(dram.in);
  tg.script = {{0, R, 0}, {1, W, 8192}, {2, R, 64}};
  sc_core::sc_start();
  EXPECT_EQ(tg.responded[0], 300);
  EXPECT_EQ(tg.responded[1], 301);
  EXPECT_EQ(tg.responded[2], 302);
  EXPECT_EQ(dram.stats_json()["latency_max_cycles"], 300.0);
}

// A third-party, loosely timed target: b_transport only. tlm_utils::simple_target_socket converts our
// nb_transport calls; it never sends END_REQ, so BEGIN_RESP ends each request phase.
struct LtMemory : sc_core::sc_module {
  tlm_utils::simple_target_socket<LtMemory> socket{"socket"};
  int calls = 0;
  explicit LtMemory(sc_core::sc_module_name n) : sc_module(n) {
    socket.register_b_transport(this, &LtMemory::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
    ++calls;
    ASSERT_NE(p.get_data_ptr(), nullptr);  // scratch buffer, never null
    if (p.is_read()) std::memset(p.get_data_ptr(), 0, p.get_data_length());
    delay += sc_core::sc_time(50, sc_core::SC_NS);
    p.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

TEST(MemBehaviour, ThirdPartyLtTargetReplacesDram) {
  Chain c(test_l1(), /*with_dram=*/false);
  LtMemory mem("lt_memory");
  c.l2.out.bind(mem.socket);
  c.tg.script = {{0, R, 0}, {1, R, 4096}};
  sc_core::sc_start();
  EXPECT_EQ(c.tg.latency(0), 61);  // 11 + 50
  // The second fill request waits for the first response (no END_REQ from an LT target): 55 + 50.
  EXPECT_EQ(c.tg.responded[1], 111);
  EXPECT_EQ(mem.calls, 2);
}

TEST(MemBehaviour, CrossbarInterleavesBanksAndPorts) {
  TrafficGen tg0("tg0", 0), tg1("tg1", 1);
  L1Cache l1a("l1a", test_l1()), l1b("l1b", test_l1());
  Crossbar xbar("xbar", test_xbar(2, 2));
  L2Cache l2a("l2a", test_l2()), l2b("l2b", test_l2());
  Dram dram("dram", test_dram(2));
  tg0.out.bind(l1a.in);
  tg1.out.bind(l1b.in);
  l1a.out.bind(xbar.in);
  l1b.out.bind(xbar.in);
  xbar.out.bind(l2a.in);
  xbar.out.bind(l2b.in);
  l2a.out.bind(dram.in);
  l2b.out.bind(dram.in);
  tg0.script = {{0, R, 0}, {100, R, 512}};
  tg1.script = {{0, R, 256}};
  sc_core::sc_start();
  EXPECT_EQ(xbar.bank_of(0), 0u);
  EXPECT_EQ(xbar.bank_of(256), 1u);
  EXPECT_EQ(l2a.stats().reads, 2u);  // 0 and 512
  EXPECT_EQ(l2b.stats().reads, 1u);
  // Both reach DRAM bank 0 row 0 at 5: one opens the row (26), the other follows one burst later (30).
  const double a = tg0.responded[0], b = tg1.responded[0];
  EXPECT_EQ(std::min(a, b), 26);
  EXPECT_EQ(std::max(a, b), 30);
  EXPECT_EQ(xbar.port_stats()[0].requests, 2u);
  EXPECT_EQ(xbar.port_stats()[1].requests, 1u);
  EXPECT_EQ(xbar.port_stats()[1].resp_bytes, 32u);
}

TEST(MemBehaviour, StatsAreJson) {
  Chain c;
  c.tg.script = {{0, R, 0}, {50, R, 0}};
  sc_core::sc_start();
  const auto l1 = c.l1.stats_json();
  EXPECT_EQ(l1["hits"], 1);
  EXPECT_EQ(l1["misses"], 1);
  EXPECT_TRUE(l1.contains("mshr_merges"));
  EXPECT_TRUE(l1.contains("reservation_failures"));
  EXPECT_TRUE(l1.contains("writebacks"));
  const auto x = c.xbar.stats_json();
  EXPECT_EQ(x["ports"][0]["requests"], 1);
  const auto d = c.dram->stats_json();
  EXPECT_EQ(d["row_misses"], 1);
  EXPECT_EQ(d["latency_avg_cycles"], 15.0);
  EXPECT_GT(d["bandwidth_bytes_per_cycle"].get<double>(), 0.0);
  EXPECT_GT(d["queue_avg"].get<double>(), 0.0);
}

}  // namespace
}  // namespace simtlm::mem::test
