#pragma once
// Building blocks shared by every memory component: the 4-phase AT base protocol on either side of a
// socket, and a timeline of future actions. They keep each component free of phase bookkeeping and make
// sure nothing is woken on an idle cycle: every process is an SC_METHOD triggered by a timed event.
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

// Timeline and the ports spawn their processes with sc_spawn.
#ifndef SC_INCLUDE_DYNAMIC_PROCESSES
#define SC_INCLUDE_DYNAMIC_PROCESSES
#endif
#include <systemc>
#include <tlm>

#include "models/mem/waves.hpp"

namespace simtlm::mem {

using Gp = tlm::tlm_generic_payload;
using FwFn = std::function<tlm::tlm_sync_enum(Gp&, tlm::tlm_phase&, sc_core::sc_time&)>;
using BwFn = FwFn;

// Runs callbacks at future simulation times, in (time, insertion) order. A binary heap in one vector: no
// allocation per callback once it has grown (callbacks capturing at most 16 bytes are stored in place).
class Timeline {
 public:
  explicit Timeline(const char* name);
  void at(const sc_core::sc_time& delay, std::function<void()> fn);

 private:
  struct Entry {
    sc_core::sc_time when;
    uint64_t seq;
    std::function<void()> fn;
  };
  // Heap order: the entry due first (earliest time, then earliest insertion) on top.
  static bool later(const Entry& a, const Entry& b) {
    return a.when != b.when ? a.when > b.when : a.seq > b.seq;
  }
  void run();
  sc_core::sc_event ev_;
  std::vector<Entry> q_;
  uint64_t seq_ = 0;
};

// Initiator side. send() queues a request; BEGIN_REQ goes out in FIFO order, one at a time, the next only
// after END_REQ (the request exclusion rule; that is how back-pressure reaches us). The response callback
// runs when BEGIN_RESP (or TLM_COMPLETED) arrives; we always complete the response phase at once, so a
// target never waits for END_RESP from us. A timing annotation is honoured on every path: BEGIN_RESP (or
// TLM_COMPLETED) annotated t ends the request phase t from now, not at once (docs/tlm-protocol.md).
class AtInitiatorPort {
 public:
  using RespFn = std::function<void(Gp&)>;
  AtInitiatorPort(const char* name, FwFn fw, RespFn on_resp);

  void send(Gp& p, const sc_core::sc_time& delay = sc_core::SC_ZERO_TIME);
  tlm::tlm_sync_enum nb_transport_bw(Gp& p, tlm::tlm_phase& ph, sc_core::sc_time& t);

  // Requests queued or waiting for END_REQ.
  size_t pending() const { return queue_.size() + (in_req_ ? 1 : 0); }
  // Called after each END_REQ, so an owner can release its own back-pressure.
  std::function<void()> on_req_done;
  uint64_t stall_time_ps() const { return stall_ps_; }
  // The link's signals in a waveform: NAME.req_valid (a request was in its request phase this cycle),
  // NAME.resp_valid (a response arrived this cycle) and NAME.waiting (requests queued behind it). Costs
  // nothing when not traced: the callbacks are wrapped only here.
  void trace(Waves& waves, const std::string& name);

 private:
  struct LinkWave {
    PulseBit req, resp;
    uint64_t waiting = 0;
  };
  void pump();
  void req_done();
  void end_req_after(Gp& p, const sc_core::sc_time& t);
  void deliver(Gp& p, const sc_core::sc_time& t, bool send_end_resp);

  FwFn fw_;
  RespFn on_resp_;
  Timeline timeline_;
  std::deque<std::pair<sc_core::sc_time, Gp*>> queue_;  // (earliest send time, payload)
  Gp* in_req_ = nullptr;
  sc_core::sc_time req_sent_at_;
  uint64_t stall_ps_ = 0;  // time spent waiting for END_REQ
  std::unique_ptr<LinkWave> wave_;
};

// Target side. Incoming BEGIN_REQ is offered to accept(); if it refuses (no MSHR, full queue) END_REQ is
// withheld until retry() succeeds, which back-pressures the initiator. respond() queues BEGIN_RESP after a
// delay; responses leave in the order they become due, one at a time (response exclusion rule): the next
// BEGIN_RESP waits for END_RESP, also when END_RESP comes back annotated (TLM_UPDATED or TLM_COMPLETED with
// a delay ends the response phase that much later).
//
// A component's responses that are still TLM_INCOMPLETE_RESPONSE leave as TLM_OK_RESPONSE, unless the port
// is an interconnect's: an interconnect forwards the status its target set, whatever it is (IEEE 1666-2011,
// 14.17), so a target that leaves it incomplete is not masked.
class AtTargetPort {
 public:
  using AcceptFn = std::function<bool(Gp&)>;
  AtTargetPort(const char* name, BwFn bw, AcceptFn accept, bool interconnect = false);

  tlm::tlm_sync_enum nb_transport_fw(Gp& p, tlm::tlm_phase& ph, sc_core::sc_time& t);
  // The blocking interface, for an LT initiator (call from an SC_THREAD). The transaction goes through the
  // same path as an AT one: it waits out the annotation `t`, then for the request channel, is offered to
  // accept() (and back-pressured like any other), and returns when its response would be sent, with `t`
  // zero: the simulation time advanced by the component's loaded latency. So the component's state (MSHRs,
  // queues, links) stays consistent with concurrent AT traffic. A payload without a memory manager gets a
  // no-op one while it is inside, so components below may acquire and release it.
  void b_transport(Gp& p, sc_core::sc_time& t);
  void respond(Gp& p, const sc_core::sc_time& delay);
  // Offer the withheld request again (call when capacity frees). Safe to call when nothing waits.
  void retry();
  bool blocked() const { return waiting_ != nullptr; }

 private:
  void send_responses();
  void accepted();
  // The event of a blocking transaction inside the port, or nullptr (an AT one).
  sc_core::sc_event* blocking(const Gp& p) const;

  BwFn bw_;
  AcceptFn accept_;
  const bool interconnect_;
  Timeline timeline_;
  std::vector<std::pair<const Gp*, sc_core::sc_event*>> blocking_;  // b_transport calls inside
  uint32_t blocked_callers_ = 0;                                    // b_transport calls waiting to enter
  sc_core::sc_event req_free_;                                      // waiting_ became free
  Gp* waiting_ = nullptr;                                           // received, not yet accepted
  sc_core::sc_time waiting_from_;  // its annotated arrival time: no acceptance before
  Gp* resp_open_ = nullptr;        // BEGIN_RESP sent, END_RESP not yet received
  std::deque<Gp*> resp_queue_;
};

// Cycles to sc_time.
inline sc_core::sc_time cycles(const sc_core::sc_time& clock, uint64_t n) {
  return clock * static_cast<double>(n);
}

}  // namespace simtlm::mem
