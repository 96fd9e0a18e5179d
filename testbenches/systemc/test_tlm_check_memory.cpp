// run.tlm_check on a whole memory system (MemoryParams::tlm_check): a checker on every link, named after it,
// changes no latency and sees every transaction of a compliant run; a DRAM channel target that answers
// without a response status stops the run with an sc_report naming the L2-to-channel link and the rule.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "models/mem/memory_system.hpp"
#include "testbenches/systemc/mem_chain.hpp"

namespace simtlm::mem::test::checked {
namespace {

constexpr auto R = tlm::TLM_READ_COMMAND;
constexpr auto W = tlm::TLM_WRITE_COMMAND;

// test_two_channel_memory() (mem_chain.hpp: one SM, two L2 banks, two DRAM channels) with the checkers on.
MemoryParams checked_params() {
  MemoryParams p = test_two_channel_memory();
  p.tlm_check = true;
  return p;
}

std::vector<std::string> checker_names(const MemorySystem& memory) {
  std::vector<std::string> names;
  for (const auto& c : memory.tlm_checkers()) names.push_back(c->basename());
  return names;
}

TEST(TlmCheckMemory, ACheckerOnEveryLinkChangesNoLatencyAndSeesEveryTransaction) {
  FixedLatencyTarget channel0("channel0", 25), channel1("channel1", 40);
  MemorySystem memory(checked_params(), [&](uint32_t channel) -> TargetSocket& {
    return channel == 0 ? channel0.socket : channel1.socket;
  });
  TrafficGen tg("tg");
  tg.out.bind(memory.sm_port(0));
  tg.script = {{0, R, 0}, {1, R, 128}, {100, R, 0}, {200, W, 256}};
  sc_core::sc_start();
  // The latencies of MemorySystem.CustomTargetInEachDramChannelAnswersThroughL1CrossbarAndL2, unchecked.
  EXPECT_EQ(tg.latency(0), 11 + 25);
  EXPECT_EQ(tg.latency(1), 11 + 40);
  EXPECT_EQ(tg.latency(2), 4);
  EXPECT_EQ(tg.latency(3), 4);
  EXPECT_EQ(checker_names(memory),
            (std::vector<std::string>{"check_l1_0_xbar", "check_xbar_l2_0", "check_l2_0_dram0",
                                      "check_xbar_l2_1", "check_l2_1_dram1", "check_sm0_l1"}));
  std::vector<uint64_t> transactions;
  for (const auto& c : memory.tlm_checkers()) {
    EXPECT_TRUE(c->violations().empty()) << c->name();
    transactions.push_back(c->transactions());
  }
  // The SM sends 4 requests; 3 pass the L1 (two misses and the write-through store); the store and the read
  // of line 0 reach L2 bank 0 and DRAM channel 0 only for the read.
  EXPECT_EQ(transactions, (std::vector<uint64_t>{3, 2, 1, 1, 1, 4}));
}

TEST(TlmCheckMemory, AChannelTargetWithoutAResponseStatusStopsTheRunNamingTheLink) {
  FixedLatencyTarget channel0("channel0", 25), channel1("channel1", 40);
  channel0.set_status = false;
  MemorySystem memory(checked_params(), [&](uint32_t channel) -> TargetSocket& {
    return channel == 0 ? channel0.socket : channel1.socket;
  });
  TrafficGen tg("tg");
  tg.out.bind(memory.sm_port(0));
  tg.script = {{0, R, 0}};
  try {
    sc_core::sc_start();
    ADD_FAILURE() << "the non-compliant target was not reported";
  } catch (const sc_core::sc_report& r) {
    EXPECT_STREQ(r.get_msg_type(), kTlmCheckMsgType);
    EXPECT_NE(std::string(r.get_msg())
                  .find("check_l2_0_dram0: response_status: a response still "
                        "TLM_INCOMPLETE_RESPONSE (read of 32 bytes at 0x0"),
              std::string::npos)
        << r.get_msg();
  }
}

}  // namespace
}  // namespace simtlm::mem::test::checked
