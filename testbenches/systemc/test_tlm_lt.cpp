// The base protocol's blocking and debug interfaces on every target socket of the memory system
// (docs/tlm-protocol.md): an LT initiator calling b_transport on an L1, the crossbar, an L2 bank and both
// DRAM channel backends gets the response status an AT initiator gets, after the same loaded latency;
// transport_dbg reads and writes the backing store from every socket, split at the crossbar's interleaving,
// and answers 0 bytes where nothing backs the address; DMI is refused everywhere.
#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "models/mem/backing_store.hpp"
#include "models/mem/dram.hpp"
#include "models/mem/fixed_latency_dram.hpp"
#include "testbenches/systemc/mem_chain.hpp"

namespace simtlm::mem::test::tlm_lt {
namespace {

constexpr auto R = tlm::TLM_READ_COMMAND;
constexpr auto W = tlm::TLM_WRITE_COMMAND;

// Calls b_transport for each access of its script, from one SC_THREAD, with payloads on its stack (no
// memory manager, as LT initiators often have), and records the status and the cycle each call returned
// (its annotation added).
struct LtInitiator : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<LtInitiator> out{"out"};
  std::vector<Access> script;
  sc_core::sc_time annotation = sc_core::SC_ZERO_TIME;  // handed to every call
  std::vector<tlm::tlm_response_status> status;
  std::vector<double> responded;
  bool mm_left_behind = false;

  SC_HAS_PROCESS(LtInitiator);
  explicit LtInitiator(sc_core::sc_module_name n) : sc_module(n) { SC_THREAD(run); }

  double latency(size_t i) const { return responded.at(i) - static_cast<double>(script.at(i).cycle); }

 private:
  void run() {
    const sc_core::sc_time ns(1, sc_core::SC_NS);
    for (const Access& a : script) {
      const sc_core::sc_time at = ns * static_cast<double>(a.cycle);
      if (at > sc_core::sc_time_stamp()) wait(at - sc_core::sc_time_stamp());
      std::vector<unsigned char> data(a.len);
      tlm::tlm_generic_payload p;
      p.set_command(a.cmd);
      p.set_address(a.addr);
      p.set_data_ptr(data.data());
      p.set_data_length(a.len);
      p.set_streaming_width(a.len);
      sc_core::sc_time t = annotation;
      out->b_transport(p, t);
      status.push_back(p.get_response_status());
      responded.push_back((sc_core::sc_time_stamp() + t) / ns);
      mm_left_behind = mm_left_behind || p.has_mm();
    }
  }
};

// A script of misses, a hit and a store, the same for the LT initiator and an AT one; far enough apart that
// the LT initiator's one thread has its answer before the next access is due.
const std::vector<Access> kScript = {{0, R, 0},      {100, R, 4096},   {200, R, 0},
                                     {300, W, 8192}, {400, R, 32, 64}, {500, R, 4096 + 2048}};

// The LT and AT latencies agree access by access, and every status is TLM_OK_RESPONSE.
void expect_same_as_at(const LtInitiator& lt, const TrafficGen& at) {
  ASSERT_EQ(lt.responded.size(), lt.script.size());
  for (size_t i = 0; i < lt.script.size(); ++i) {
    EXPECT_EQ(lt.status[i], tlm::TLM_OK_RESPONSE) << "access " << i;
    EXPECT_EQ(lt.latency(i), at.latency(i)) << "access " << i;
    EXPECT_GT(lt.latency(i), 0) << "access " << i;
  }
  EXPECT_FALSE(lt.mm_left_behind);  // the memory manager lent inside is taken back
}

TEST(TlmLt, BTransportOnADramChannelTakesTheAtPath) {
  LtInitiator lt("lt");
  TrafficGen at("at");
  auto lt_dram = make_dram_channel("lt_dram", test_dram());
  auto at_dram = make_dram_channel("at_dram", test_dram());
  lt.out.bind(lt_dram->in);
  at.out.bind(at_dram->in);
  lt.script = at.script = kScript;
  sc_core::sc_start();
  expect_same_as_at(lt, at);
  EXPECT_EQ(lt_dram->stats().reads, 5u);
  EXPECT_EQ(lt_dram->stats().writes, 1u);
  EXPECT_EQ(lt_dram->stats().row_misses, at_dram->stats().row_misses);
}

TEST(TlmLt, BTransportOnAFixedLatencyDramAnswersAfterItsLatencyAndItsAnnotation) {
  DramParams d = test_dram();
  d.fixed_latency_mode = true;
  d.fixed_latency = 7;
  LtInitiator lt("lt");
  FixedLatencyDram dram("dram", d);
  lt.out.bind(dram.in);
  lt.script = {{0, R, 0}, {20, W, 64}};
  lt.annotation = sc_core::sc_time(3, sc_core::SC_NS);  // the request arrives 3 cycles after the call
  sc_core::sc_start();
  ASSERT_EQ(lt.status.size(), 2u);
  EXPECT_EQ(lt.status[0], tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(lt.status[1], tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(lt.latency(0), 3 + 7);
  EXPECT_EQ(lt.latency(1), 3 + 7);
  EXPECT_EQ(dram.stats().reads + dram.stats().writes, 2u);
}

TEST(TlmLt, BTransportOnAnL2Bank) {
  LtInitiator lt("lt");
  TrafficGen at("at");
  L2Cache lt_l2("lt_l2", test_l2()), at_l2("at_l2", test_l2());
  auto lt_dram = make_dram_channel("lt_dram", test_dram());
  auto at_dram = make_dram_channel("at_dram", test_dram());
  lt.out.bind(lt_l2.in);
  lt_l2.out.bind(lt_dram->in);
  at.out.bind(at_l2.in);
  at_l2.out.bind(at_dram->in);
  lt.script = at.script = kScript;
  sc_core::sc_start();
  expect_same_as_at(lt, at);
  EXPECT_EQ(lt_l2.stats().hits, at_l2.stats().hits);
  EXPECT_EQ(lt_l2.stats().misses, at_l2.stats().misses);
}

TEST(TlmLt, BTransportOnTheCrossbar) {
  LtInitiator lt("lt");
  TrafficGen at("at");
  Crossbar lt_x("lt_x", test_xbar()), at_x("at_x", test_xbar());
  L2Cache lt_l2("lt_l2", test_l2()), at_l2("at_l2", test_l2());
  auto lt_dram = make_dram_channel("lt_dram", test_dram());
  auto at_dram = make_dram_channel("at_dram", test_dram());
  lt.out.bind(lt_x.in);
  lt_x.out.bind(lt_l2.in);
  lt_l2.out.bind(lt_dram->in);
  at.out.bind(at_x.in);
  at_x.out.bind(at_l2.in);
  at_l2.out.bind(at_dram->in);
  lt.script = at.script = kScript;
  sc_core::sc_start();
  expect_same_as_at(lt, at);
  EXPECT_EQ(lt_x.port_stats()[0].requests, kScript.size());
  EXPECT_EQ(lt_x.port_stats()[0].responses, kScript.size());
}

TEST(TlmLt, BTransportOnAnL1) {
  LtInitiator lt("lt");
  Chain at;  // TrafficGen -> L1 -> crossbar -> L2 -> DRAM
  L1Cache l1("lt_l1", test_l1());
  Crossbar x("lt_x", test_xbar());
  L2Cache l2("lt_l2", test_l2());
  auto dram = make_dram_channel("lt_dram", test_dram());
  lt.out.bind(l1.in);
  l1.out.bind(x.in);
  x.out.bind(l2.in);
  l2.out.bind(dram->in);
  lt.script = at.tg.script = kScript;
  sc_core::sc_start();
  expect_same_as_at(lt, at.tg);
  EXPECT_EQ(l1.stats().hits, at.l1.stats().hits);
}

TEST(TlmLt, LtAndAtInitiatorsShareTheCrossbar) {
  CrossbarParams xp = test_xbar(2, 1);
  LtInitiator lt("lt");
  TrafficGen at("at");
  Crossbar x("x", xp);
  L2Cache l2("l2", test_l2());
  auto dram = make_dram_channel("dram", test_dram());
  at.out.bind(x.in);
  lt.out.bind(x.in);
  x.out.bind(l2.in);
  l2.out.bind(dram->in);
  // Both at once, to one bank: the bank queue and the L2's MSHRs serve them together.
  at.script = {{0, R, 0}, {0, R, 1024}, {0, R, 2048}, {5, W, 0}};
  lt.script = {{0, R, 0}, {0, R, 1024 + 32}, {1, R, 4096}, {5, W, 64}};
  sc_core::sc_start();
  ASSERT_EQ(lt.status.size(), lt.script.size());
  for (size_t i = 0; i < lt.script.size(); ++i) {
    EXPECT_EQ(lt.status[i], tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(at.status[i], tlm::TLM_OK_RESPONSE);
    EXPECT_GE(at.responded[i], 0);
  }
  EXPECT_EQ(x.port_stats()[0].responses + x.port_stats()[1].responses, 8u);
  EXPECT_GE(l2.stats().mshr_merges, 1u);  // the two reads of line 0 met in one MSHR
}

// ---- debug transport and DMI ----------------------------------------------------------------------

// A debug transaction of `len` bytes at `addr` through `socket`; returns the count it answered.
struct DebugProbe : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<DebugProbe> out{"out"};
  std::vector<std::pair<sc_dt::uint64, sc_dt::uint64>> invalidated;  // DMI ranges taken back
  explicit DebugProbe(sc_core::sc_module_name n) : sc_module(n) {
    out.register_invalidate_direct_mem_ptr(this, &DebugProbe::invalidate);
  }
  void invalidate(sc_dt::uint64 start, sc_dt::uint64 end) { invalidated.emplace_back(start, end); }
  unsigned transact(tlm::tlm_command cmd, uint64_t addr, unsigned char* data, unsigned len,
                    const std::vector<unsigned char>& enables = {}) {
    tlm::tlm_generic_payload p;
    p.set_command(cmd);
    p.set_address(addr);
    p.set_data_ptr(data);
    p.set_data_length(len);
    p.set_streaming_width(len);
    if (!enables.empty()) {
      p.set_byte_enable_ptr(const_cast<unsigned char*>(enables.data()));
      p.set_byte_enable_length(static_cast<unsigned>(enables.size()));
    }
    return out->transport_dbg(p);
  }
  bool dmi(uint64_t addr, tlm::tlm_dmi& d) {
    tlm::tlm_generic_payload p;
    p.set_command(R);
    p.set_address(addr);
    return out->get_direct_mem_ptr(p, d);
  }
};

// Probes on an L1, on the crossbar (spreading 256-byte units over two L2 banks, each in front of its DRAM
// channel), on an L2 bank and on a DRAM channel of their own; device memory holds one 1024-byte buffer, the
// backing store of every channel. Simulation is started for a delta so the bindings are complete.
struct DebugRig {
  ptx::GlobalMemory memory;
  uint64_t base = memory.allocate(1024, 256, "buf");
  GlobalMemoryStore store{memory};
  DebugProbe via_l1{"via_l1"}, via_x{"via_x"}, via_l2{"via_l2"}, via_dram{"via_dram"};
  L1Cache l1{"l1", test_l1()};
  Crossbar x{"x", test_xbar(2, 2)};
  L2Cache l2_0{"l2_0", test_l2()}, l2_1{"l2_1", test_l2()}, l2_2{"l2_2", test_l2()};
  std::unique_ptr<DramChannel> dram0 = make_dram_channel("dram0", test_dram(1));
  std::unique_ptr<DramChannel> dram1 = make_dram_channel("dram1", test_dram(1));
  std::unique_ptr<DramChannel> dram2 = make_dram_channel("dram2", test_dram(1));
  std::unique_ptr<DramChannel> dram3 = make_dram_channel("dram3", test_dram(1));
  DebugRig() {
    via_l1.out.bind(l1.in);
    l1.out.bind(x.in);
    via_x.out.bind(x.in);
    x.out.bind(l2_0.in);
    x.out.bind(l2_1.in);
    l2_0.out.bind(dram0->in);
    l2_1.out.bind(dram1->in);
    via_l2.out.bind(l2_2.in);
    l2_2.out.bind(dram2->in);
    via_dram.out.bind(dram3->in);
    for (auto* d : {dram0.get(), dram1.get(), dram2.get(), dram3.get()}) d->set_backing_store(&store);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }
  void unback() {
    for (auto* d : {dram0.get(), dram1.get(), dram2.get(), dram3.get()}) d->set_backing_store(nullptr);
  }
};

TEST(TlmDebug, ReadsAndWritesDeviceMemoryThroughEverySocket) {
  DebugRig rig;
  std::vector<unsigned char> pattern(600), back(600, 0);
  for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<unsigned char>(i * 7 + 1);
  // 600 bytes from offset 100 cross three of the crossbar's 256-byte units: both banks answer.
  EXPECT_EQ(rig.via_l1.transact(W, rig.base + 100, pattern.data(), 600), 600u);
  std::vector<unsigned char> in_memory(600);
  rig.memory.read(rig.base + 100, in_memory.data(), 600);
  EXPECT_EQ(in_memory, pattern);
  EXPECT_EQ(rig.via_x.transact(R, rig.base + 100, back.data(), 600), 600u);
  EXPECT_EQ(back, pattern);
  unsigned char one = 0;
  EXPECT_EQ(rig.via_dram.transact(R, rig.base + 300, &one, 1), 1u);
  EXPECT_EQ(one, pattern[200]);
  EXPECT_EQ(rig.via_l2.transact(R, rig.base + 101, &one, 1), 1u);
  EXPECT_EQ(one, pattern[1]);
  // No simulated time passes, nothing is counted as traffic.
  EXPECT_EQ(sc_core::sc_time_stamp(), sc_core::SC_ZERO_TIME);
  EXPECT_EQ(rig.l1.stats().reads + rig.l1.stats().writes, 0u);
  EXPECT_EQ(rig.dram0->stats().completed + rig.dram1->stats().completed, 0u);
  // The crossbar split the request at its interleaving: both banks' channels were asked.
  EXPECT_NE(rig.x.bank_of(rig.base + 100), rig.x.bank_of(rig.base + 356));
}

TEST(TlmDebug, AnswersOnlyTheBytesThatExistAndHonoursByteEnables) {
  DebugRig rig;
  std::vector<unsigned char> data(64, 0xab);
  // The buffer ends 16 bytes into the request: 16 bytes answered.
  EXPECT_EQ(rig.via_x.transact(R, rig.base + 1024 - 16, data.data(), 64), 16u);
  // Nothing allocated there (local memory's timing addresses, for one): 0 bytes.
  EXPECT_EQ(rig.via_l1.transact(R, 0x7c00'0000'0000ull, data.data(), 64), 0u);
  EXPECT_EQ(rig.via_l1.transact(W, rig.base - 4096, data.data(), 4), 0u);
  // Byte enables: every other byte written, the rest left as they were (zero).
  std::vector<unsigned char> ones(8, 0x11), back(8, 0xee);
  EXPECT_EQ(rig.via_l1.transact(W, rig.base, ones.data(), 8, {0xff, 0x00}), 8u);
  EXPECT_EQ(rig.via_dram.transact(R, rig.base + 256, back.data(), 8), 8u);  // not written: still zero
  EXPECT_EQ(back, std::vector<unsigned char>(8, 0));
  EXPECT_EQ(rig.via_x.transact(R, rig.base, back.data(), 8), 8u);
  EXPECT_EQ(back, (std::vector<unsigned char>{0x11, 0, 0x11, 0, 0x11, 0, 0x11, 0}));
}

TEST(TlmDebug, WithoutABackingStoreEverySocketAnswersZeroBytes) {
  DebugRig rig;
  rig.unback();
  std::vector<unsigned char> data(32);
  EXPECT_EQ(rig.via_l1.transact(R, rig.base, data.data(), 32), 0u);
  EXPECT_EQ(rig.via_x.transact(W, rig.base, data.data(), 32), 0u);
  EXPECT_EQ(rig.via_l2.transact(R, rig.base, data.data(), 32), 0u);
  EXPECT_EQ(rig.via_dram.transact(R, rig.base + 256, data.data(), 32), 0u);
}

TEST(TlmDmi, CachesAndTheCrossbarRefuseForTheWholeAddressSpace) {
  DebugRig rig;
  for (DebugProbe* probe : {&rig.via_l1, &rig.via_x, &rig.via_l2}) {
    tlm::tlm_dmi d;
    EXPECT_FALSE(probe->dmi(rig.base, d)) << probe->name();
    EXPECT_FALSE(d.is_read_allowed());
    EXPECT_FALSE(d.is_write_allowed());
    EXPECT_EQ(d.get_start_address(), 0u);  // refused for the whole address space: no need to ask again
    EXPECT_EQ(d.get_end_address(), ~sc_dt::uint64{0});
  }
}

TEST(TlmDmi, ADramChannelGrantsItsBackingStoreAndInvalidatesWhenItChanges) {
  DebugRig rig;
  tlm::tlm_dmi d;
  ASSERT_TRUE(rig.via_dram.dmi(rig.base + 100, d));
  EXPECT_TRUE(d.is_read_write_allowed());
  EXPECT_EQ(d.get_start_address(), rig.base);  // the 1024-byte buffer, inside one page
  EXPECT_EQ(d.get_end_address(), rig.base + 1023);
  // A row hit of test_dram: (tCL + burst / 2) DRAM clocks.
  const DramParams p = test_dram(1);
  EXPECT_EQ(d.get_read_latency(), p.clock / p.clock_ratio * double(p.tCL + p.burst_length / 2));
  // The pointer is the device memory: writes through it are seen by the functional model, and back.
  d.get_dmi_ptr()[5] = 0x5a;
  unsigned char byte = 0;
  rig.memory.read(rig.base + 5, &byte, 1);
  EXPECT_EQ(byte, 0x5a);
  const unsigned char seven = 7;
  rig.memory.write(rig.base + 1000, &seven, 1);
  EXPECT_EQ(d.get_dmi_ptr()[1000], 7);
  // Outside every allocation: refused for that address only.
  tlm::tlm_dmi none;
  EXPECT_FALSE(rig.via_dram.dmi(rig.base + 4096, none));
  EXPECT_EQ(none.get_start_address(), rig.base + 4096);
  EXPECT_EQ(none.get_end_address(), rig.base + 4096);
  // A new backing store (here none) takes back every pointer.
  EXPECT_TRUE(rig.via_dram.invalidated.empty());
  rig.unback();
  ASSERT_EQ(rig.via_dram.invalidated.size(), 1u);
  EXPECT_EQ(rig.via_dram.invalidated[0], std::make_pair(sc_dt::uint64{0}, ~sc_dt::uint64{0}));
  tlm::tlm_dmi after;
  EXPECT_FALSE(rig.via_dram.dmi(rig.base, after));
}

}  // namespace
}  // namespace simtlm::mem::test::tlm_lt
