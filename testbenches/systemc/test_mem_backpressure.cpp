// A full queue stalls its producer through the AT base protocol: the target answers BEGIN_REQ with
// TLM_ACCEPTED and sends END_REQ only when an entry frees, and the initiator sends nothing more until then
// (request exclusion rule). Each test fills one bounded queue and checks, cycle by cycle, when the
// producer's requests were accepted and answered, and the queue's occupancy statistics.
#include <gtest/gtest.h>

#include "testbenches/systemc/mem_chain.hpp"

namespace simtlm::mem::test {
namespace {

constexpr auto R = tlm::TLM_READ_COMMAND;
constexpr auto W = tlm::TLM_WRITE_COMMAND;

TEST(MemBackpressure, FullDramQueueWithholdsEndReqUntilAnEntryFrees) {
  TrafficGen tg("tg");
  DramParams p = DramParams::fixed(10);
  p.queue_depth = 2;
  FixedLatencyDram dram("dram", p);
  tg.out.bind(dram.in);
  // Four reads at cycle 0 into a queue of two, each held 10 cycles.
  tg.script = {{0, R, 0}, {0, R, 64}, {0, R, 128}, {0, R, 192}};
  sc_core::sc_start();
  // The first two fill the queue at once; the third waits for the first to leave at 10 and the fourth,
  // which cannot even be offered before the third's END_REQ, follows in the same cycle.
  EXPECT_EQ(tg.accepted, (std::vector<double>{0, 0, 10, 10}));
  EXPECT_EQ(tg.responded, (std::vector<double>{10, 10, 20, 20}));
  const nlohmann::json s = dram.stats_json();
  EXPECT_EQ(s["queue_max"], 2u);
  EXPECT_EQ(s["queue_cycles_full"], 20u);  // two entries held from 0 to 20
  EXPECT_EQ(s["rejections"], 1u);          // only the third was refused; the fourth came after
}

TEST(MemBackpressure, FullL1WriteBufferStallsTheStoresBehindIt) {
  TrafficGen tg("tg");
  CacheParams l1p = test_l1();  // write-through: every store takes a write-buffer entry until DRAM answers
  l1p.write_buffer = 2;
  L1Cache l1("l1", l1p);
  FixedLatencyDram dram("dram", DramParams::fixed(10));
  tg.out.bind(l1.in);
  l1.out.bind(dram.in);
  // Four stores to four lines in four L1 banks: no bank conflict, only the write buffer limits them.
  tg.script = {{0, W, 0}, {0, W, 128}, {0, W, 256}, {0, W, 384}};
  sc_core::sc_start();
  // Stores are answered hit_latency (4) after acceptance; the third and fourth wait until the first two
  // writes come back from DRAM at 10.
  EXPECT_EQ(tg.accepted, (std::vector<double>{0, 0, 10, 10}));
  EXPECT_EQ(tg.responded, (std::vector<double>{4, 4, 14, 14}));
  const nlohmann::json s = l1.stats_json();
  EXPECT_EQ(s["write_buffer_max"], 2u);
  EXPECT_EQ(s["write_buffer_cycles_full"], 20u);
  EXPECT_EQ(s["reservation_failures"], 1u);
  EXPECT_EQ(s["mshr_max"], 0u);
  EXPECT_EQ(dram.stats().writes, 4u);
}

}  // namespace
}  // namespace simtlm::mem::test
