// The MemorySystem builder: a module written here, with a TLM target socket and a fixed latency of its own,
// stands in each DRAM channel's place, and the responses through L1 -> crossbar -> L2 -> that module come
// back at exact cycles; without it, DramParams picks each channel's backend.
#include <gtest/gtest.h>
#include <tlm_utils/simple_target_socket.h>

#include <memory>
#include <vector>

#include "models/mem/dram.hpp"
#include "models/mem/fixed_latency_dram.hpp"
#include "models/mem/memory_system.hpp"
#include "testbenches/systemc/mem_chain.hpp"

namespace simtlm::mem::test {
namespace {

constexpr auto R = tlm::TLM_READ_COMMAND;
constexpr auto W = tlm::TLM_WRITE_COMMAND;

TEST(MemorySystem, CustomTargetInEachDramChannelAnswersThroughL1CrossbarAndL2) {
  FixedLatencyTarget channel0("channel0", 25), channel1("channel1", 40);
  MemorySystem memory(test_two_channel_memory(), [&](uint32_t channel) -> TargetSocket& {
    return channel == 0 ? channel0.socket : channel1.socket;
  });
  TrafficGen tg("tg");
  tg.out.bind(memory.sm_port(0));
  // Line 0 lives in L2 bank 0 (channel 0), line 128 in bank 1 (channel 1); the third read hits the L1, the
  // write goes through it to L2 bank 0, which allocates it without reading DRAM (write-validate).
  tg.script = {{0, R, 0}, {1, R, 128}, {100, R, 0}, {200, W, 256}};
  sc_core::sc_start();
  // 11 cycles of L1, crossbar and L2 on a miss (as MemSystem.ThirdPartyAtTargetReplacesDram) plus each
  // channel's own latency; an L1 hit and a store take the L1's 4-cycle hit latency.
  EXPECT_EQ(tg.latency(0), 11 + 25);
  EXPECT_EQ(tg.latency(1), 11 + 40);
  EXPECT_EQ(tg.latency(2), 4);
  EXPECT_EQ(tg.latency(3), 4);
  ASSERT_EQ(channel0.seen.size(), 1u);
  ASSERT_EQ(channel1.seen.size(), 1u);
  EXPECT_EQ(channel0.seen[0].addr, 0u);
  EXPECT_EQ(channel1.seen[0].addr, 128u);
  EXPECT_EQ(channel0.seen[0].cmd, R);
  EXPECT_EQ(channel0.seen[0].len, 32u);  // the missing sector only
  // Down: L1 tag lookup 1, crossbar 2, L2 tag lookup 2; the other 6 of the 11 are on the way back.
  EXPECT_EQ(channel0.seen[0].cycle, 0 + 5);
  EXPECT_EQ(channel1.seen[0].cycle, 1 + 5);
  EXPECT_TRUE(memory.dram_channels().empty());  // nothing built in the replaced channels' place
  EXPECT_EQ(memory.l2s()[0]->stats().writes, 1u);
  EXPECT_EQ(memory.l2s()[1]->stats().writes, 0u);
}

TEST(MemorySystem, DramModeSelectsEachChannelsBackend) {
  MemoryParams timed = test_two_channel_memory();
  MemoryParams fixed = test_two_channel_memory();
  fixed.dram.fixed_latency_mode = true;
  fixed.dram.fixed_latency = 30;
  MemorySystem a(timed), b(fixed);
  TrafficGen tg_a("tg_a"), tg_b("tg_b");
  tg_a.out.bind(a.sm_port(0));
  tg_b.out.bind(b.sm_port(0));
  tg_b.script = {{0, R, 0}, {1, R, 128}};
  sc_core::sc_start();
  ASSERT_EQ(a.dram_channels().size(), 2u);
  ASSERT_EQ(b.dram_channels().size(), 2u);
  for (const auto& d : a.dram_channels()) EXPECT_NE(dynamic_cast<const Dram*>(d.get()), nullptr);
  for (const auto& d : b.dram_channels()) EXPECT_NE(dynamic_cast<const FixedLatencyDram*>(d.get()), nullptr);
  EXPECT_EQ(tg_b.latency(0), 11 + 30);
  EXPECT_EQ(tg_b.latency(1), 11 + 30);
  EXPECT_EQ(b.dram_channels()[0]->stats().reads, 1u);
  EXPECT_EQ(b.dram_channels()[1]->stats().reads, 1u);
  // Every request was accepted and answered at the L1, crossbar port, L2 bank and DRAM channel once.
  EXPECT_EQ(b.progress(), 2 * (1 + 1) + 2 * 2 + 2 * (1 + 1) + 2);
  EXPECT_EQ(a.progress(), 0u);
}

TEST(MemorySystem, SmsBindInOrderAndWithoutL1sReachTheCrossbar) {
  MemoryParams p = test_two_channel_memory();
  p.sms = 2;
  p.xbar.in_ports = 2;
  p.l1_enabled = false;
  MemorySystem memory(p);
  EXPECT_THROW(memory.sm_port(1), std::invalid_argument);
  TrafficGen tg0("tg0", 0), tg1("tg1", 1);
  tg0.out.bind(memory.sm_port(0));
  tg1.out.bind(memory.sm_port(1));
  EXPECT_THROW(memory.sm_port(2), std::invalid_argument);
  tg1.script = {{0, R, 0}};
  sc_core::sc_start();
  EXPECT_TRUE(memory.l1s().empty());
  EXPECT_EQ(memory.crossbar().port_stats()[1].requests, 1u);
  EXPECT_EQ(memory.crossbar().port_stats()[0].requests, 0u);
}

}  // namespace
}  // namespace simtlm::mem::test
