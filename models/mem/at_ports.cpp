#include "models/mem/at_ports.hpp"

#include <algorithm>

namespace simtlm::mem {

using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;

namespace {
// Lent to a payload that enters through b_transport without a memory manager: the components below may
// acquire and release it; it goes back to its initiator untouched.
struct NoopMm : tlm::tlm_mm_interface {
  void free(tlm::tlm_generic_payload*) override {}
};
NoopMm noop_mm;

void spawn_method(const char* name, sc_core::sc_event* ev, std::function<void()> fn) {
  sc_core::sc_spawn_options o;
  o.spawn_method();
  o.dont_initialize();
  o.set_sensitivity(ev);
  sc_core::sc_spawn(std::move(fn), sc_core::sc_gen_unique_name(name, /*preserve_first=*/true), &o);
}
}  // namespace

// The process is "<name>_timeline" (docs/systemc.md, "Process names"): never the name of a socket or module.
Timeline::Timeline(const char* name) {
  spawn_method((std::string(name) + "_timeline").c_str(), &ev_, [this] { run(); });
}

void Timeline::at(const sc_time& delay, std::function<void()> fn) {
  q_.push_back(Entry{sc_core::sc_time_stamp() + delay, seq_++, std::move(fn)});
  std::push_heap(q_.begin(), q_.end(), later);
  ev_.notify(delay);  // an earlier pending notification wins, a later one is kept by run()
}

void Timeline::run() {
  const sc_time now = sc_core::sc_time_stamp();
  while (!q_.empty() && q_.front().when <= now) {
    std::pop_heap(q_.begin(), q_.end(), later);
    auto fn = std::move(q_.back().fn);
    q_.pop_back();
    fn();
  }
  if (!q_.empty()) ev_.notify(q_.front().when - now);
}

// ---------------------------------------------------------------------------------------------------

AtInitiatorPort::AtInitiatorPort(const char* name, FwFn fw, RespFn on_resp)
    : fw_(std::move(fw)), on_resp_(std::move(on_resp)), timeline_(name) {}

void AtInitiatorPort::trace(Waves& waves, const std::string& name) {
  wave_ = std::make_unique<LinkWave>();
  LinkWave* wave = wave_.get();
  waves.trace(wave->req.value, name + ".req_valid");
  waves.trace(wave->resp.value, name + ".resp_valid");
  waves.trace(wave->waiting, name + ".waiting");
  waves.each_cycle([this, wave] {
    wave->req.settle(in_req_ != nullptr);
    wave->resp.settle(false);
    wave->waiting = queue_.size();
  });
  fw_ = [wave, fw = std::move(fw_)](Gp& p, tlm::tlm_phase& ph, sc_time& t) {
    if (ph == tlm::BEGIN_REQ) wave->req.pulse();
    return fw(p, ph, t);
  };
  on_resp_ = [wave, on_resp = std::move(on_resp_)](Gp& p) {
    wave->resp.pulse();
    on_resp(p);
  };
}

void AtInitiatorPort::send(Gp& p, const sc_time& delay) {
  queue_.emplace_back(sc_core::sc_time_stamp() + delay, &p);
  if (!in_req_ && queue_.size() == 1) timeline_.at(delay, [this] { pump(); });
}

void AtInitiatorPort::pump() {
  if (in_req_ || queue_.empty()) return;
  const sc_time now = sc_core::sc_time_stamp();
  if (queue_.front().first > now) {
    timeline_.at(queue_.front().first - now, [this] { pump(); });
    return;
  }
  Gp& p = *queue_.front().second;
  queue_.pop_front();
  in_req_ = &p;
  req_sent_at_ = now;
  tlm::tlm_phase ph = tlm::BEGIN_REQ;
  sc_time t = SC_ZERO_TIME;
  switch (fw_(p, ph, t)) {
    case tlm::TLM_ACCEPTED:
      break;  // END_REQ (or BEGIN_RESP) comes on the backward path
    case tlm::TLM_UPDATED:
      if (ph == tlm::END_REQ) {
        timeline_.at(t, [this, &p] {
          if (in_req_ == &p) req_done();
        });
      } else if (ph == tlm::BEGIN_RESP) {
        end_req_after(p, t);
        deliver(p, t, true);
      }
      break;
    case tlm::TLM_COMPLETED:
      end_req_after(p, t);
      deliver(p, t, false);
      break;
  }
}

void AtInitiatorPort::end_req_after(Gp& p, const sc_time& t) {
  // BEGIN_RESP (or completion) annotated t implies END_REQ at that time, not before.
  if (t == SC_ZERO_TIME) {
    req_done();
    return;
  }
  timeline_.at(t, [this, &p] {
    if (in_req_ == &p) req_done();
  });
}

void AtInitiatorPort::req_done() {
  stall_ps_ += (sc_core::sc_time_stamp() - req_sent_at_).value();
  in_req_ = nullptr;
  if (on_req_done) on_req_done();
  if (!queue_.empty()) timeline_.at(SC_ZERO_TIME, [this] { pump(); });
}

void AtInitiatorPort::deliver(Gp& p, const sc_time& t, bool send_end_resp) {
  // Two lambdas of two pointers each rather than one with the flag: they fit std::function's own storage.
  if (!send_end_resp) {
    timeline_.at(t, [this, &p] { on_resp_(p); });
    return;
  }
  timeline_.at(t, [this, &p] {
    tlm::tlm_phase ph = tlm::END_RESP;
    sc_time z = SC_ZERO_TIME;
    fw_(p, ph, z);
    on_resp_(p);
  });
}

tlm::tlm_sync_enum AtInitiatorPort::nb_transport_bw(Gp& p, tlm::tlm_phase& ph, sc_time& t) {
  if (ph == tlm::END_REQ) {
    // Guarded: a BEGIN_RESP with a shorter delay may already have ended the request phase.
    timeline_.at(t, [this, &p] {
      if (in_req_ == &p) req_done();
    });
    return tlm::TLM_ACCEPTED;
  }
  if (ph == tlm::BEGIN_RESP) {
    if (in_req_ == &p) end_req_after(p, t);  // BEGIN_RESP implies END_REQ
    // Deliver in a later delta (or after t): the callback may free the payload, which the target
    // must not see before this call returns.
    timeline_.at(t, [this, &p] { on_resp_(p); });
    ph = tlm::END_RESP;
    return tlm::TLM_COMPLETED;
  }
  SC_REPORT_ERROR("simtlm/mem", "unexpected phase on backward path");
  return tlm::TLM_ACCEPTED;
}

// ---------------------------------------------------------------------------------------------------

AtTargetPort::AtTargetPort(const char* name, BwFn bw, AcceptFn accept, bool interconnect)
    : bw_(std::move(bw)), accept_(std::move(accept)), interconnect_(interconnect), timeline_(name) {}

sc_core::sc_event* AtTargetPort::blocking(const Gp& p) const {
  for (const auto& [payload, done] : blocking_) {
    if (payload == &p) return done;
  }
  return nullptr;
}

void AtTargetPort::accepted() {
  waiting_ = nullptr;
  if (blocked_callers_) req_free_.notify();
}

void AtTargetPort::b_transport(Gp& p, sc_time& t) {
  if (t != SC_ZERO_TIME) sc_core::wait(t);
  t = SC_ZERO_TIME;
  ++blocked_callers_;
  while (waiting_) sc_core::wait(req_free_);  // the request exclusion rule, as for an AT initiator
  --blocked_callers_;
  const bool lend_mm = !p.has_mm();
  if (lend_mm) p.set_mm(&noop_mm);
  sc_core::sc_event done;
  blocking_.emplace_back(&p, &done);
  waiting_ = &p;
  waiting_from_ = sc_core::sc_time_stamp();
  retry();
  sc_core::wait(done);
  std::erase_if(blocking_, [&p](const auto& b) { return b.first == &p; });
  if (lend_mm) p.set_mm(nullptr);
}

tlm::tlm_sync_enum AtTargetPort::nb_transport_fw(Gp& p, tlm::tlm_phase& ph, sc_time& t) {
  if (ph == tlm::BEGIN_REQ) {
    if (waiting_) SC_REPORT_ERROR("simtlm/mem", "BEGIN_REQ before END_REQ (request exclusion rule)");
    waiting_ = &p;
    waiting_from_ = sc_core::sc_time_stamp() + t;
    if (t == SC_ZERO_TIME && accept_(p)) {
      accepted();
      ph = tlm::END_REQ;
      return tlm::TLM_UPDATED;
    }
    if (t != SC_ZERO_TIME) timeline_.at(t, [this] { retry(); });  // arrives later: annotated delay
    return tlm::TLM_ACCEPTED;
  }
  if (ph == tlm::END_RESP) {
    timeline_.at(t, [this, &p] {
      if (resp_open_ == &p) resp_open_ = nullptr;
      send_responses();
    });
    return tlm::TLM_COMPLETED;
  }
  SC_REPORT_ERROR("simtlm/mem", "unexpected phase on forward path");
  return tlm::TLM_ACCEPTED;
}

void AtTargetPort::retry() {
  if (!waiting_ || waiting_from_ > sc_core::sc_time_stamp() || !accept_(*waiting_)) return;
  Gp& p = *waiting_;
  accepted();
  if (blocking(p)) return;  // a b_transport call: no END_REQ to send
  tlm::tlm_phase ph = tlm::END_REQ;
  sc_time t = SC_ZERO_TIME;
  bw_(p, ph, t);
}

void AtTargetPort::respond(Gp& p, const sc_time& delay) {
  timeline_.at(delay, [this, &p] {
    resp_queue_.push_back(&p);
    send_responses();
  });
}

void AtTargetPort::send_responses() {
  while (!resp_open_ && !resp_queue_.empty()) {
    Gp& p = *resp_queue_.front();
    resp_queue_.pop_front();
    if (!interconnect_ && p.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE)
      p.set_response_status(tlm::TLM_OK_RESPONSE);
    if (sc_core::sc_event* done = blocking(p)) {
      done->notify();  // the b_transport call returns; it never held the response channel
      continue;
    }
    tlm::tlm_phase ph = tlm::BEGIN_RESP;
    sc_time t = SC_ZERO_TIME;
    auto r = bw_(p, ph, t);
    if (r == tlm::TLM_ACCEPTED) {
      resp_open_ = &p;  // wait for END_RESP
    } else if (t != SC_ZERO_TIME) {
      // TLM_UPDATED(END_RESP) or TLM_COMPLETED annotated t: the response phase ends t from now. Only the
      // pointer is kept: the payload may be gone already.
      resp_open_ = &p;
      timeline_.at(t, [this, &p] {
        if (resp_open_ == &p) resp_open_ = nullptr;
        send_responses();
      });
    }
    // Otherwise the phase is over now.
  }
}

}  // namespace simtlm::mem
