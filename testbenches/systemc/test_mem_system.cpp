// Whole-system checks: many SMs and banks under random traffic, a third-party AT target, the GDDR5 preset.
#include <gtest/gtest.h>

#include <memory>
#include <random>

#include "testbenches/systemc/mem_chain.hpp"

namespace simtlm::mem::test {
namespace {

TEST(MemSystem, RandomTrafficCompletesAndCountsAgree) {
  constexpr int kSms = 4, kBanks = 2, kPerSm = 300;
  std::vector<std::unique_ptr<TrafficGen>> tgs;
  std::vector<std::unique_ptr<L1Cache>> l1s;
  std::vector<std::unique_ptr<L2Cache>> l2s;
  Crossbar xbar("xbar", test_xbar(kSms, kBanks));
  Dram dram("dram", test_dram(kBanks));
  std::mt19937 rng(7);  // fixed seed: a deterministic run
  for (int s = 0; s < kSms; ++s) {
    CacheParams p = test_l1();
    if (s % 2) p.write_policy = WritePolicy::kWriteBackAllocate;
    tgs.push_back(std::make_unique<TrafficGen>(("tg" + std::to_string(s)).c_str(), s));
    l1s.push_back(std::make_unique<L1Cache>(("l1_" + std::to_string(s)).c_str(), p));
    tgs[s]->out.bind(l1s[s]->in);
    l1s[s]->out.bind(xbar.in);
    uint64_t cycle = 0;
    for (int i = 0; i < kPerSm; ++i) {
      cycle += rng() % 4;
      const uint64_t addr = (rng() % 2048) * 32;  // 64 KiB, sector aligned
      tgs[s]->script.push_back({cycle, rng() % 4 ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND, addr, 32});
    }
  }
  for (int b = 0; b < kBanks; ++b) {
    l2s.push_back(std::make_unique<L2Cache>(("l2_" + std::to_string(b)).c_str(), test_l2()));
    xbar.out.bind(l2s[b]->in);
    l2s[b]->out.bind(dram.in);
  }
  sc_core::sc_start();
  uint64_t l2_down_reads = 0, l2_down_writes = 0, l1_down = 0, l2_in = 0;
  for (int s = 0; s < kSms; ++s) {
    for (int i = 0; i < kPerSm; ++i) ASSERT_GE(tgs[s]->responded[i], 0) << "sm " << s << " request " << i;
    const auto& st = l1s[s]->stats();
    EXPECT_EQ(st.reads + st.writes, uint64_t{kPerSm});
    l1_down += st.down_reads + st.down_writes;
  }
  for (auto& l2 : l2s) {
    l2_down_reads += l2->stats().down_reads;
    l2_down_writes += l2->stats().down_writes;
    l2_in += l2->stats().reads + l2->stats().writes;
  }
  EXPECT_EQ(l1_down, l2_in);  // the crossbar loses and invents nothing
  EXPECT_EQ(dram.stats().reads, l2_down_reads);
  EXPECT_EQ(dram.stats().writes, l2_down_writes);
  EXPECT_GT(dram.stats().row_hits, 0u);
  EXPECT_GT(dram.stats().row_misses, 0u);
}

// A third-party AT target that answers BEGIN_REQ with TLM_UPDATED/BEGIN_RESP and an annotated delay: the
// initiator must send END_RESP itself.
struct AtMemory : sc_core::sc_module {
  tlm_utils::simple_target_socket<AtMemory> socket{"socket"};
  int end_resps = 0;
  explicit AtMemory(sc_core::sc_module_name n) : sc_module(n) {
    socket.register_nb_transport_fw(this, &AtMemory::fw);
  }
  tlm::tlm_sync_enum fw(tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_core::sc_time& t) {
    if (ph == tlm::END_RESP) {
      ++end_resps;
      return tlm::TLM_COMPLETED;
    }
    p.set_response_status(tlm::TLM_OK_RESPONSE);
    ph = tlm::BEGIN_RESP;
    t += sc_core::sc_time(40, sc_core::SC_NS);
    return tlm::TLM_UPDATED;
  }
};

TEST(MemSystem, ThirdPartyAtTargetReplacesDram) {
  Chain c(test_l1(), /*with_dram=*/false);
  AtMemory mem("at_memory");
  c.l2.out.bind(mem.socket);
  c.tg.script = {{0, tlm::TLM_READ_COMMAND, 0}, {1, tlm::TLM_READ_COMMAND, 4096}};
  sc_core::sc_start();
  EXPECT_EQ(c.tg.latency(0), 51);  // 11 + 40
  // BEGIN_RESP annotated 40 ends the request phase 40 later (IEEE 1666-2011: BEGIN_RESP implies END_REQ, at
  // the annotated time), so the second read leaves the L2 then: at 5 + 40, answered at 85, back up at 91.
  EXPECT_EQ(c.tg.latency(1), 91 - 1);
  EXPECT_EQ(mem.end_resps, 2);
}

TEST(MemSystem, Gddr5PresetTiming) {
  TrafficGen tg("tg");
  Dram dram("dram", DramParams::gddr5());
  tg.out.bind(dram.in);
  tg.script = {{0, tlm::TLM_READ_COMMAND, 0}, {100, tlm::TLM_READ_COMMAND, 32}};
  sc_core::sc_start();
  const double tck_ns = dram.tck().to_seconds() * 1e9;
  EXPECT_NEAR(tck_ns, 700.0 / 924.0, 1e-3);
  EXPECT_NEAR(tg.latency(0), (12 + 12 + 4) * tck_ns, 0.01);  // tRCD + tCL + BL/2
  EXPECT_NEAR(tg.latency(1), (12 + 4) * tck_ns, 0.01);       // row hit
}

}  // namespace
}  // namespace simtlm::mem::test
