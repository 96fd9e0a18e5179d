// The base-protocol checker (models/mem/tlm_checker.hpp) between a scripted initiator and a scripted target:
// a compliant AT exchange, b_transport and debug transport pass with no violation, and each rule is broken
// once on purpose, by the initiator or by the target, and reported under its name.
#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <functional>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "models/mem/tlm_checker.hpp"

namespace simtlm::mem {
namespace {

using Gp = tlm::tlm_generic_payload;
using Fw = std::function<tlm::tlm_sync_enum(Gp&, tlm::tlm_phase&, sc_core::sc_time&)>;
using Strings = std::vector<std::string>;

DECLARE_EXTENDED_PHASE(ODD_PHASE);

// A target whose answers each test scripts; it keeps the backward socket for the test to call.
struct Target : sc_core::sc_module {
  tlm_utils::simple_target_socket<Target> in{"in"};
  Fw fw = [](Gp&, tlm::tlm_phase&, sc_core::sc_time&) { return tlm::TLM_ACCEPTED; };
  std::function<void(Gp&)> blocking = [](Gp& p) { p.set_response_status(tlm::TLM_OK_RESPONSE); };
  unsigned debug_bytes = 0;
  explicit Target(sc_core::sc_module_name n) : sc_module(n) {
    in.register_nb_transport_fw(this, &Target::nb_fw);
    in.register_b_transport(this, &Target::b);
    in.register_transport_dbg(this, &Target::dbg);
  }
  tlm::tlm_sync_enum nb_fw(Gp& p, tlm::tlm_phase& ph, sc_core::sc_time& t) { return fw(p, ph, t); }
  void b(Gp& p, sc_core::sc_time&) { blocking(p); }
  unsigned dbg(Gp&) { return debug_bytes; }
  tlm::tlm_sync_enum send_bw(Gp& p, tlm::tlm_phase ph) {
    sc_core::sc_time t = sc_core::SC_ZERO_TIME;
    return in->nb_transport_bw(p, ph, t);
  }
};

// An initiator that runs the test's script in a thread and answers BEGIN_RESP with TLM_ACCEPTED.
struct Initiator : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<Initiator> out{"out"};
  std::function<void(Initiator&)> script;
  tlm::tlm_sync_enum bw_answer = tlm::TLM_ACCEPTED;
  SC_HAS_PROCESS(Initiator);
  explicit Initiator(sc_core::sc_module_name n) : sc_module(n) {
    out.register_nb_transport_bw(this, &Initiator::nb_bw);
    SC_THREAD(run);
  }
  tlm::tlm_sync_enum nb_bw(Gp&, tlm::tlm_phase&, sc_core::sc_time&) { return bw_answer; }
  void run() {
    if (script) script(*this);
  }
  tlm::tlm_sync_enum send(Gp& p, tlm::tlm_phase ph) {
    sc_core::sc_time t = sc_core::SC_ZERO_TIME;
    return out->nb_transport_fw(p, ph, t);
  }
};

struct Payload {
  unsigned char data[16] = {};
  Gp gp;
  explicit Payload(uint64_t address = 0x100) {
    gp.set_command(tlm::TLM_READ_COMMAND);
    gp.set_address(address);
    gp.set_data_ptr(data);
    gp.set_data_length(16);
    gp.set_streaming_width(16);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  }
};

// One initiator, a checker and one target, bound; the reports of the checker are counted, not thrown.
struct Link {
  Initiator initiator{"initiator"};
  TlmChecker checker{"checker"};
  Target target{"target"};
  Link() {
    initiator.out.bind(checker.in);
    checker.out.bind(target.in);
    sc_core::sc_report_handler::set_actions(kTlmCheckMsgType, sc_core::SC_DO_NOTHING);
  }
  const Strings& run() {
    sc_core::sc_start();
    return checker.violations();
  }
};

TEST(TlmChecker, ACompliantAtExchangeBlockingCallAndDebugReadPass) {
  Link link;
  Payload a, b, dbg;
  link.target.fw = [&](Gp& p, tlm::tlm_phase& ph, sc_core::sc_time&) {
    if (ph == tlm::END_RESP) return tlm::TLM_COMPLETED;
    if (&p == &b.gp) {  // answered at once, as the return value
      p.set_response_status(tlm::TLM_OK_RESPONSE);
      return tlm::TLM_COMPLETED;
    }
    ph = tlm::END_REQ;
    return tlm::TLM_UPDATED;
  };
  link.target.debug_bytes = 16;
  link.initiator.script = [&](Initiator& i) {
    EXPECT_EQ(i.send(a.gp, tlm::BEGIN_REQ), tlm::TLM_UPDATED);
    a.gp.set_response_status(tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(link.target.send_bw(a.gp, tlm::BEGIN_RESP), tlm::TLM_ACCEPTED);
    EXPECT_EQ(i.send(a.gp, tlm::END_RESP), tlm::TLM_COMPLETED);
    EXPECT_EQ(i.send(b.gp, tlm::BEGIN_REQ), tlm::TLM_COMPLETED);
    Payload blocking;
    sc_core::sc_time t = sc_core::SC_ZERO_TIME;
    i.out->b_transport(blocking.gp, t);
    EXPECT_EQ(i.out->transport_dbg(dbg.gp), 16u);
  };
  EXPECT_EQ(link.run(), Strings{});
  EXPECT_EQ(link.checker.transactions(), 3u);
}

TEST(TlmChecker, ASecondRequestBeforeEndReqBreaksRequestExclusion) {
  Link link;
  Payload a, b;
  link.initiator.script = [&](Initiator& i) {
    i.send(a.gp, tlm::BEGIN_REQ);  // the target accepts and never sends END_REQ
    i.send(b.gp, tlm::BEGIN_REQ);
  };
  EXPECT_EQ(link.run(), Strings{"request_exclusion"});
}

TEST(TlmChecker, APayloadSentAgainBeforeItsTransactionEndedIsReuse) {
  Link link;
  Payload a;
  link.target.fw = [](Gp&, tlm::tlm_phase& ph, sc_core::sc_time&) {
    ph = tlm::END_REQ;
    return tlm::TLM_UPDATED;
  };
  link.initiator.script = [&](Initiator& i) {
    i.send(a.gp, tlm::BEGIN_REQ);
    i.send(a.gp, tlm::BEGIN_REQ);
  };
  EXPECT_EQ(link.run(), Strings{"payload_reuse"});
}

TEST(TlmChecker, ATargetResponseBeforeTheLastEndRespBreaksResponseExclusion) {
  Link link;
  Payload a, b;
  link.target.fw = [](Gp&, tlm::tlm_phase& ph, sc_core::sc_time&) {
    ph = tlm::END_REQ;
    return tlm::TLM_UPDATED;
  };
  link.initiator.script = [&](Initiator& i) {
    i.send(a.gp, tlm::BEGIN_REQ);
    i.send(b.gp, tlm::BEGIN_REQ);
    a.gp.set_response_status(tlm::TLM_OK_RESPONSE);
    b.gp.set_response_status(tlm::TLM_OK_RESPONSE);
    link.target.send_bw(a.gp, tlm::BEGIN_RESP);  // the initiator accepts and has not sent END_RESP
    link.target.send_bw(b.gp, tlm::BEGIN_RESP);
  };
  EXPECT_EQ(link.run(), Strings{"response_exclusion"});
}

TEST(TlmChecker, TargetFaultsInTheResponseAreNamed) {
  Link link;
  Payload incomplete, changed, accepted;
  link.target.fw = [&](Gp& p, tlm::tlm_phase& ph, sc_core::sc_time&) {
    if (&p == &incomplete.gp) return tlm::TLM_COMPLETED;  // no response status set
    if (&p == &changed.gp) {
      p.set_data_length(8);
      p.set_response_status(tlm::TLM_OK_RESPONSE);
      return tlm::TLM_COMPLETED;
    }
    ph = tlm::END_REQ;  // a phase change the return value does not announce
    return tlm::TLM_ACCEPTED;
  };
  link.initiator.script = [&](Initiator& i) {
    i.send(incomplete.gp, tlm::BEGIN_REQ);
    i.send(changed.gp, tlm::BEGIN_REQ);
    i.send(accepted.gp, tlm::BEGIN_REQ);
  };
  EXPECT_EQ(link.run(), (Strings{"response_status", "attributes_changed", "accepted_phase"}));
}

TEST(TlmChecker, InitiatorFaultsInTheRequestAreNamed) {
  Link link;
  Payload ok_status, no_data, bad_phase;
  ok_status.gp.set_response_status(tlm::TLM_OK_RESPONSE);
  no_data.gp.set_data_ptr(nullptr);
  link.target.fw = [](Gp& p, tlm::tlm_phase&, sc_core::sc_time&) {
    p.set_response_status(tlm::TLM_OK_RESPONSE);
    return tlm::TLM_COMPLETED;
  };
  link.initiator.script = [&](Initiator& i) {
    i.send(ok_status.gp, tlm::BEGIN_REQ);
    i.send(no_data.gp, tlm::BEGIN_REQ);
    i.send(bad_phase.gp, tlm::END_RESP);  // no response to end
    i.send(bad_phase.gp, ODD_PHASE);
    i.send(bad_phase.gp, tlm::BEGIN_RESP);  // a backward phase on the forward path
  };
  EXPECT_EQ(link.run(),
            (Strings{"initial_status", "payload_fields", "phase_order", "unknown_phase", "phase_order"}));
}

TEST(TlmChecker, BlockingAndDebugTransportFaultsAreNamed) {
  Link link;
  link.target.blocking = [](Gp&) {};  // leaves TLM_INCOMPLETE_RESPONSE
  link.target.debug_bytes = 64;
  link.initiator.script = [&](Initiator& i) {
    Payload a, dbg;
    sc_core::sc_time t = sc_core::SC_ZERO_TIME;
    i.out->b_transport(a.gp, t);
    i.out->transport_dbg(dbg.gp);
  };
  EXPECT_EQ(link.run(), (Strings{"response_status", "debug_length"}));
}

// A memory manager whose payloads the test passes without acquiring them.
struct NoopMm : tlm::tlm_mm_interface {
  void free(Gp*) override {}
};

TEST(TlmChecker, APayloadWithAMemoryManagerAndNoReferenceIsNamed) {
  Link link;
  NoopMm mm;
  Payload a;
  a.gp.set_mm(&mm);
  link.target.fw = [](Gp& p, tlm::tlm_phase&, sc_core::sc_time&) {
    p.set_response_status(tlm::TLM_OK_RESPONSE);
    return tlm::TLM_COMPLETED;
  };
  link.initiator.script = [&](Initiator& i) { i.send(a.gp, tlm::BEGIN_REQ); };
  EXPECT_EQ(link.run(), Strings{"memory_manager"});
  a.gp.set_mm(nullptr);
}

TEST(TlmChecker, ByDefaultAViolationIsAnScErrorNamingTheLinkAndTheRule) {
  Initiator initiator("initiator");
  TlmChecker checker("l1_to_xbar");
  Target target("target");
  initiator.out.bind(checker.in);
  checker.out.bind(target.in);
  Payload a;
  target.fw = [](Gp&, tlm::tlm_phase&, sc_core::sc_time&) { return tlm::TLM_COMPLETED; };
  initiator.script = [&](Initiator& i) { i.send(a.gp, tlm::BEGIN_REQ); };
  sc_core::sc_report_handler::set_actions(kTlmCheckMsgType, sc_core::SC_THROW);
  try {
    sc_core::sc_start();
    ADD_FAILURE() << "no report";
  } catch (const sc_core::sc_report& r) {
    EXPECT_STREQ(r.get_msg_type(), kTlmCheckMsgType);
    EXPECT_EQ(r.get_severity(), sc_core::SC_ERROR);
    EXPECT_NE(std::string(r.get_msg())
                  .find("l1_to_xbar: response_status: TLM_COMPLETED with the response still "
                        "TLM_INCOMPLETE_RESPONSE (read of 16 bytes at 0x100"),
              std::string::npos)
        << r.get_msg();
  }
}

}  // namespace
}  // namespace simtlm::mem
