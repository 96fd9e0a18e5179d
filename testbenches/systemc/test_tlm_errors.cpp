// Error responses, byte enables and timing annotations of the base protocol (docs/tlm-protocol.md): a target
// answering TLM_ADDRESS_ERROR_RESPONSE reaches the requester through the caches and the crossbar, named; the
// crossbar never turns an incomplete response into TLM_OK_RESPONSE; a workload whose memory answers errors
// fails as a located kernel error; partial stores carry byte enables; the AT ports honour annotated delays
// of BEGIN_RESP and END_RESP from hand-driven peers.
#include <gtest/gtest.h>
#include <tlm_utils/simple_target_socket.h>

#include <string>
#include <vector>

#include "hw/sc/gpu.hpp"
#include "hw/sc/reports.hpp"
#include "hw/sc/timing_params.hpp"
#include "hw/units/select/unit_set.hpp"
#include "models/launch/session.hpp"
#include "testbenches/systemc/mem_chain.hpp"

namespace simtlm::mem::test::tlm_errors {
namespace {

constexpr auto R = tlm::TLM_READ_COMMAND;
constexpr auto W = tlm::TLM_WRITE_COMMAND;
const sc_core::sc_time kNs(1, sc_core::SC_NS);

// A loosely timed memory answering every request `status` after 10 cycles (the socket turns the AT
// requests of the L2 into b_transport calls).
struct StatusTarget : sc_core::sc_module {
  tlm_utils::simple_target_socket<StatusTarget> socket{"socket"};
  tlm::tlm_response_status status;
  StatusTarget(sc_core::sc_module_name n, tlm::tlm_response_status s) : sc_module(n), status(s) {
    socket.register_b_transport(this, &StatusTarget::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& t) {
    if (status != tlm::TLM_INCOMPLETE_RESPONSE) p.set_response_status(status);
    t += kNs * 10.0;
  }
};

TEST(TlmErrors, AnAddressErrorBelowTheL2ReachesTheRequesterNamed) {
  Chain c(test_l1(), /*with_dram=*/false);
  StatusTarget mem("mem", tlm::TLM_ADDRESS_ERROR_RESPONSE);
  c.l2.out.bind(mem.socket);
  c.l2.set_target_name(socket_owner(mem.socket));
  std::vector<std::string> posted;
  c.l2.on_posted_error = [&](const std::string& m) { posted.push_back(m); };
  c.tg.script = {{0, R, 0}, {0, R, 64}, {10, W, 4096}};
  // The store is acknowledged by the write-through L1 and allocated by the write-back L2: no error yet. Its
  // writeback fails: the L2 had acknowledged it already, so it reports through on_posted_error.
  size_t posted_before_writeback = 99;
  sc_core::sc_spawn([&] {
    sc_core::wait(200, sc_core::SC_NS);
    posted_before_writeback = posted.size();
    c.l2.write_back_dirty();
  });
  sc_core::sc_start(400, sc_core::SC_NS);
  // Both reads of line 0 miss (the second after the first's failed fill): both get the error, named after
  // the target.
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(c.tg.status[i], tlm::TLM_ADDRESS_ERROR_RESPONSE) << i;
    EXPECT_EQ(c.tg.error_at[i], "mem") << i;
  }
  EXPECT_FALSE(c.l2.contains(0));  // a failed fill fills nothing
  EXPECT_FALSE(c.l1.contains(0));
  EXPECT_EQ(c.tg.status[2], tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(posted_before_writeback, 0u);
  ASSERT_EQ(posted.size(), 1u);
  EXPECT_NE(posted[0].find("TLM_ADDRESS_ERROR_RESPONSE"), std::string::npos) << posted[0];
  EXPECT_NE(posted[0].find("address 0x1000"), std::string::npos) << posted[0];
  EXPECT_NE(posted[0].find("by mem"), std::string::npos) << posted[0];
  EXPECT_NE(posted[0].find("l2"), std::string::npos) << posted[0];
}

TEST(TlmErrors, TheCrossbarForwardsAnIncompleteResponseUnchanged) {
  TrafficGen tg("tg");
  Crossbar x("x", test_xbar());
  StatusTarget bad("bad", tlm::TLM_INCOMPLETE_RESPONSE);  // a non-compliant target
  tg.out.bind(x.in);
  x.out.bind(bad.socket);
  tg.script = {{0, R, 0}};
  sc_core::sc_start();
  ASSERT_GE(tg.responded[0], 0);
  EXPECT_EQ(tg.status[0], tlm::TLM_INCOMPLETE_RESPONSE);  // not masked as TLM_OK_RESPONSE (IEEE 1666 14.17)
  EXPECT_EQ(tg.error_at[0], "the target bound to x.out[0]");
}

TEST(TlmErrors, AnL1TurnsAnIncompleteFillIntoAnErrorOfItsOwn) {
  Chain c(test_l1(), /*with_dram=*/false);
  StatusTarget bad("bad", tlm::TLM_INCOMPLETE_RESPONSE);
  c.l2.out.bind(bad.socket);
  c.tg.script = {{0, R, 0}};
  sc_core::sc_start();
  EXPECT_EQ(c.tg.status[0], tlm::TLM_GENERIC_ERROR_RESPONSE);
  EXPECT_EQ(c.tg.error_at[0], "the target bound to l2.out");
}

TEST(TlmErrors, AWorkloadWhoseMemoryAnswersAddressErrorsFailsLocated) {
  launch::Session session(launch::load_launch(SIMTLM_SOURCE_DIR "/testbenches/timing/stream_add.yaml"), {});
  auto image = session.prepare_device();
  hw::GpuParams params = hw::gpu_params(config::MachineConfig());
  const uint64_t a = image->addresses.at("a");
  params.memory.dram.error_base = a;  // every channel answers reads of buffer a with an address error
  params.memory.dram.error_bytes = 40000;
  image->context.nsm = params.sms;
  const hw::TimingKernel kernel(image->context, params.sm.registers_per_thread, session.instruction_budget());
  uint64_t unit_cycle = 0;
  hw::UnitSet units = hw::make_unit_set({}, params.sm.simd_width, {}, &unit_cycle);
  hw::SmUnits sm_units;
  sm_units.majority = units.majority.get();
  hw::Gpu gpu("gpu", params, kernel, sm_units);
  const hw::report::ReportActions actions;  // the report is logged, not thrown (test_sc_conventions.cpp)
  sc_core::sc_start();
  const std::string& e = gpu.error();
  ASSERT_FALSE(e.empty());
  EXPECT_TRUE(gpu.kernel_fault()) << e;
  EXPECT_NE(e.find("memory error: TLM_ADDRESS_ERROR_RESPONSE answered by gpu.memory.dram"), std::string::npos)
      << e;
  EXPECT_NE(e.find("kernel vector_add"), std::string::npos) << e;  // located: kernel, CTA, warp, PC
  const size_t at = e.find("at address 0x");
  ASSERT_NE(at, std::string::npos) << e;
  const uint64_t address = std::stoull(e.substr(at + 13), nullptr, 16);
  EXPECT_GE(address, a) << e;
  EXPECT_LT(address, a + 40000) << e;
}

// ---- byte enables ---------------------------------------------------------------------------------

TEST(TlmByteEnables, AStoreLeavingBytesUnwrittenEnablesOnlyItsLanesBytes) {
  // 8 lanes storing 2 bytes each, 4 bytes apart, into a 32-byte request: half the bytes are enabled.
  std::vector<uint64_t> lanes(8);
  for (size_t i = 0; i < lanes.size(); ++i) lanes[i] = 0x1000 + 4 * i;
  std::vector<uint8_t> mask;
  ASSERT_TRUE(hw::store_byte_enables(lanes.data(), 0xff, 2, 0x1000, 32, mask));
  ASSERT_EQ(mask.size(), 32u);
  for (size_t i = 0; i < 32; ++i) EXPECT_EQ(mask[i], i % 4 < 2 ? 0xff : 0) << i;
  // 8 lanes of 4 bytes cover it: no byte enables.
  EXPECT_FALSE(hw::store_byte_enables(lanes.data(), 0xff, 4, 0x1000, 32, mask));
  EXPECT_TRUE(mask.empty());
}

// Records the byte enables of every write it is sent.
struct RecordingTarget : sc_core::sc_module {
  tlm_utils::simple_target_socket<RecordingTarget> socket{"socket"};
  struct Write {
    uint64_t addr;
    std::vector<unsigned char> enables;  // empty: none
  };
  std::vector<Write> writes;
  explicit RecordingTarget(sc_core::sc_module_name n) : sc_module(n) {
    socket.register_b_transport(this, &RecordingTarget::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time&) {
    if (p.is_write()) {
      const unsigned char* be = p.get_byte_enable_ptr();
      writes.push_back({p.get_address(), be ? std::vector<unsigned char>(be, be + p.get_byte_enable_length())
                                            : std::vector<unsigned char>{}});
    }
    p.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

TEST(TlmByteEnables, TheLoadStoreUnitAndTheL1PassThemDown) {
  hw::LsuLimits limits;
  hw::LoadStoreUnit lsu("lsu", 0, kNs, 128, limits, [](uint64_t, const hw::Answer&) {});
  L1Cache l1("l1", test_l1());
  RecordingTarget mem("mem");
  lsu.out.bind(l1.in);
  l1.out.bind(mem.socket);
  // A 64-byte store from 96 to 160 crosses a line: two pieces, each with its slice of the mask. Then a
  // full store, which carries none.
  std::vector<uint8_t> mask(64, 0);
  for (size_t i = 0; i < 64; i += 8) mask[i] = 0xff;
  sc_core::sc_spawn([&] {
    lsu.send(true, 96, 64, 0, 0, 1, hw::LoadStoreUnit::kNoTag, 0, {}, mask);
    lsu.send(true, 512, 32, 0, 0, 1, hw::LoadStoreUnit::kNoTag, 0, {});
  });
  sc_core::sc_start();
  ASSERT_EQ(mem.writes.size(), 3u);  // the write-through L1 forwards each
  EXPECT_EQ(mem.writes[0].addr, 96u);
  EXPECT_EQ(mem.writes[0].enables, std::vector<unsigned char>(mask.begin(), mask.begin() + 32));
  EXPECT_EQ(mem.writes[1].addr, 128u);
  EXPECT_EQ(mem.writes[1].enables, std::vector<unsigned char>(mask.begin() + 32, mask.end()));
  EXPECT_EQ(mem.writes[2].addr, 512u);
  EXPECT_TRUE(mem.writes[2].enables.empty());
}

// ---- annotated delays at the AT ports (hand-driven peers) ------------------------------------------

TEST(TlmAnnotations, BeginRespWithADelayEndsTheRequestPhaseThenNotAtOnce) {
  std::vector<double> begin_req, responses;
  bool through_bw = false;
  AtInitiatorPort* port_ptr = nullptr;
  // The target answers the first BEGIN_REQ with BEGIN_RESP annotated 5 (TLM_UPDATED); the second with
  // TLM_ACCEPTED and a BEGIN_RESP of its own, annotated 4, on the backward path 2 cycles later.
  AtInitiatorPort port(
      "port",
      [&](Gp& p, tlm::tlm_phase& ph, sc_core::sc_time& t) {
        if (ph != tlm::BEGIN_REQ) return tlm::TLM_COMPLETED;
        begin_req.push_back(sc_core::sc_time_stamp() / kNs);
        p.set_response_status(tlm::TLM_OK_RESPONSE);
        if (begin_req.size() == 1) {
          ph = tlm::BEGIN_RESP;
          t = kNs * 5.0;
          return tlm::TLM_UPDATED;
        }
        sc_core::sc_spawn([&p, &through_bw, &port_ptr] {
          sc_core::wait(kNs * 2.0);
          tlm::tlm_phase resp = tlm::BEGIN_RESP;
          sc_core::sc_time d = kNs * 4.0;
          port_ptr->nb_transport_bw(p, resp, d);
          through_bw = true;
        });
        return tlm::TLM_ACCEPTED;
      },
      [&](Gp&) { responses.push_back(sc_core::sc_time_stamp() / kNs); });
  port_ptr = &port;
  std::vector<double> req_done;
  port.on_req_done = [&] { req_done.push_back(sc_core::sc_time_stamp() / kNs); };
  Gp a, b, c;
  for (Gp* g : {&a, &b, &c}) g->set_command(R);
  sc_core::sc_spawn([&] {
    port.send(a);
    port.send(b);
    port.send(c);
  });
  sc_core::sc_start(100, sc_core::SC_NS);
  EXPECT_TRUE(through_bw);
  // a: its request phase ends with its response at 5; b may begin only then; b's response, sent at 7 with
  // 4 more, ends its request phase at 11, when c begins.
  ASSERT_EQ(begin_req.size(), 3u);
  EXPECT_EQ(begin_req[0], 0);
  EXPECT_EQ(begin_req[1], 5);
  EXPECT_EQ(begin_req[2], 11);
  ASSERT_GE(req_done.size(), 2u);
  EXPECT_EQ(req_done[0], 5);
  EXPECT_EQ(req_done[1], 11);
  ASSERT_GE(responses.size(), 2u);
  EXPECT_EQ(responses[0], 5);
  EXPECT_EQ(responses[1], 11);
}

TEST(TlmAnnotations, EndRespWithADelayHoldsTheNextBeginResp) {
  std::vector<std::pair<double, const Gp*>> begin_resp;
  Gp a, b, c;
  // The initiator completes a's response phase 6 cycles later (TLM_UPDATED, END_RESP), b's 3 cycles later
  // (TLM_COMPLETED), c's at once.
  AtTargetPort port(
      "port",
      [&](Gp& p, tlm::tlm_phase& ph, sc_core::sc_time& t) {
        if (ph != tlm::BEGIN_RESP) return tlm::TLM_ACCEPTED;
        begin_resp.emplace_back(sc_core::sc_time_stamp() / kNs, &p);
        if (&p == &a) {
          ph = tlm::END_RESP;
          t = kNs * 6.0;
          return tlm::TLM_UPDATED;
        }
        t = &p == &b ? kNs * 3.0 : sc_core::SC_ZERO_TIME;
        return tlm::TLM_COMPLETED;
      },
      [](Gp&) { return true; });
  sc_core::sc_spawn([&] {
    port.respond(a, kNs * 1.0);
    port.respond(b, kNs * 1.0);
    port.respond(c, kNs * 2.0);
  });
  sc_core::sc_start(100, sc_core::SC_NS);
  ASSERT_EQ(begin_resp.size(), 3u);
  EXPECT_EQ(begin_resp[0], std::make_pair(1.0, static_cast<const Gp*>(&a)));
  EXPECT_EQ(begin_resp[1], std::make_pair(7.0, static_cast<const Gp*>(&b)));   // not at 1
  EXPECT_EQ(begin_resp[2], std::make_pair(10.0, static_cast<const Gp*>(&c)));  // not at 7
  for (Gp* g : {&a, &b, &c}) EXPECT_EQ(g->get_response_status(), tlm::TLM_OK_RESPONSE);
}

}  // namespace
}  // namespace simtlm::mem::test::tlm_errors
