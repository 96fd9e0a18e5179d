#include "models/mem/tlm_checker.hpp"

#include <fmt/format.h>

namespace simtlm::mem {
namespace {

const char* command_name(tlm::tlm_command c) {
  return c == tlm::TLM_READ_COMMAND ? "read" : c == tlm::TLM_WRITE_COMMAND ? "write" : "ignore";
}

bool is_base_phase(const tlm::tlm_phase& ph) {
  return ph == tlm::BEGIN_REQ || ph == tlm::END_REQ || ph == tlm::BEGIN_RESP || ph == tlm::END_RESP;
}

}  // namespace

TlmChecker::TlmChecker(sc_core::sc_module_name name) : sc_module(name), in("in"), out("out") {
  in.register_nb_transport_fw(this, &TlmChecker::nb_transport_fw);
  in.register_b_transport(this, &TlmChecker::b_transport);
  in.register_transport_dbg(this, &TlmChecker::transport_dbg);
  in.register_get_direct_mem_ptr(this, &TlmChecker::get_direct_mem_ptr);
  out.register_nb_transport_bw(this, &TlmChecker::nb_transport_bw);
  out.register_invalidate_direct_mem_ptr(this, &TlmChecker::invalidate_direct_mem_ptr);
}

void TlmChecker::violation(const std::string& rule, const tlm::tlm_generic_payload& p,
                           const std::string& detail) {
  violations_.push_back(rule);
  const std::string text = fmt::format("{}: {}: {} ({} of {} bytes at 0x{:x}, at {})", name(), rule, detail,
                                       command_name(p.get_command()), p.get_data_length(), p.get_address(),
                                       sc_core::sc_time_stamp().to_string());
  SC_REPORT_ERROR(kTlmCheckMsgType, text.c_str());
}

TlmChecker::Snapshot TlmChecker::snapshot(const tlm::tlm_generic_payload& p) {
  return Snapshot{p.get_command(),        p.get_address(),         p.get_data_ptr(),
                  p.get_data_length(),    p.get_byte_enable_ptr(), p.get_byte_enable_length(),
                  p.get_streaming_width()};
}

void TlmChecker::check_request_fields(tlm::tlm_generic_payload& p) {
  if (p.get_response_status() != tlm::TLM_INCOMPLETE_RESPONSE)
    violation("initial_status", p, "a request must start as TLM_INCOMPLETE_RESPONSE");
  if (!p.get_data_ptr() || p.get_data_length() == 0 || p.get_streaming_width() == 0)
    violation("payload_fields", p, "a request needs a data pointer, a data length and a streaming width");
  if (p.has_mm() && p.get_ref_count() == 0)
    violation("memory_manager", p, "a payload with a memory manager passed with no reference held");
}

void TlmChecker::check_unchanged(tlm::tlm_generic_payload& p, const Snapshot& request) {
  // The address is left out: an interconnect behind this link may rewrite it on its way on.
  const Snapshot now = snapshot(p);
  if (now.command != request.command || now.data != request.data || now.length != request.length ||
      now.byte_enables != request.byte_enables || now.byte_enable_length != request.byte_enable_length ||
      now.streaming_width != request.streaming_width)
    violation("attributes_changed", p, "the target changed the request's attributes before responding");
}

void TlmChecker::begin_request(tlm::tlm_generic_payload& p) {
  ++transactions_;
  if (in_flight_.count(&p)) violation("payload_reuse", p, "BEGIN_REQ with a payload still in flight");
  if (request_open_ && request_open_ != &p)
    violation("request_exclusion", p, "BEGIN_REQ before the previous request's END_REQ or BEGIN_RESP");
  check_request_fields(p);
  in_flight_[&p] = InFlight{Stage::request, snapshot(p)};
  request_open_ = &p;
}

void TlmChecker::begin_response(tlm::tlm_generic_payload& p, InFlight& tx) {
  if (request_open_ == &p) request_open_ = nullptr;  // BEGIN_RESP ends the request phase too
  if (response_open_ && response_open_ != &p)
    violation("response_exclusion", p, "BEGIN_RESP before the previous response's END_RESP");
  if (p.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE)
    violation("response_status", p, "a response still TLM_INCOMPLETE_RESPONSE");
  check_unchanged(p, tx.request);
  tx.stage = Stage::response;
  response_open_ = &p;
}

void TlmChecker::complete(tlm::tlm_generic_payload& p) {
  auto it = in_flight_.find(&p);
  if (it == in_flight_.end()) {
    violation("phase_order", p, "TLM_COMPLETED for a payload not in flight on this link");
    return;
  }
  if (it->second.stage != Stage::response) {  // the response, given as the return value
    if (p.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE)
      violation("response_status", p, "TLM_COMPLETED with the response still TLM_INCOMPLETE_RESPONSE");
    check_unchanged(p, it->second.request);
  }
  if (request_open_ == &p) request_open_ = nullptr;
  if (response_open_ == &p) response_open_ = nullptr;
  in_flight_.erase(it);
}

void TlmChecker::forward_phase(tlm::tlm_generic_payload& p, const tlm::tlm_phase& ph) {
  if (!is_base_phase(ph)) return violation("unknown_phase", p, "a phase the base protocol does not define");
  if (ph == tlm::BEGIN_REQ) return begin_request(p);
  if (ph != tlm::END_RESP)
    return violation("phase_order", p, fmt::format("{} on the forward path", ph.get_name()));
  auto it = in_flight_.find(&p);
  if (it == in_flight_.end() || it->second.stage != Stage::response)
    return violation("phase_order", p, "END_RESP without a BEGIN_RESP");
  if (response_open_ == &p) response_open_ = nullptr;
  in_flight_.erase(it);
}

void TlmChecker::backward_phase(tlm::tlm_generic_payload& p, const tlm::tlm_phase& ph) {
  if (!is_base_phase(ph)) return violation("unknown_phase", p, "a phase the base protocol does not define");
  if (ph == tlm::BEGIN_REQ || ph == tlm::END_RESP)
    return violation("phase_order", p, fmt::format("{} on the backward path", ph.get_name()));
  auto it = in_flight_.find(&p);
  if (it == in_flight_.end())
    return violation("phase_order", p, fmt::format("{} for a payload not in flight", ph.get_name()));
  InFlight& tx = it->second;
  if (ph == tlm::END_REQ) {
    if (tx.stage != Stage::request)
      return violation("phase_order", p, "END_REQ after the request phase ended");
    tx.stage = Stage::request_ended;
    if (request_open_ == &p) request_open_ = nullptr;
    return;
  }
  if (tx.stage == Stage::response) return violation("phase_order", p, "a second BEGIN_RESP");
  begin_response(p, tx);
}

tlm::tlm_sync_enum TlmChecker::nb_transport_fw(tlm::tlm_generic_payload& p, tlm::tlm_phase& ph,
                                               sc_core::sc_time& t) {
  const tlm::tlm_phase sent = ph;
  forward_phase(p, ph);
  const tlm::tlm_sync_enum r = out->nb_transport_fw(p, ph, t);
  if (r == tlm::TLM_ACCEPTED && ph != sent)
    violation("accepted_phase", p, "TLM_ACCEPTED with a changed phase");
  if (r == tlm::TLM_UPDATED) {
    if (sent == tlm::END_RESP) {
      violation("phase_order", p, "TLM_UPDATED in answer to END_RESP");
    } else {
      backward_phase(p, ph);
    }
  }
  if (r == tlm::TLM_COMPLETED && sent == tlm::BEGIN_REQ) complete(p);
  return r;
}

tlm::tlm_sync_enum TlmChecker::nb_transport_bw(tlm::tlm_generic_payload& p, tlm::tlm_phase& ph,
                                               sc_core::sc_time& t) {
  const tlm::tlm_phase sent = ph;
  backward_phase(p, ph);
  const tlm::tlm_sync_enum r = in->nb_transport_bw(p, ph, t);
  if (r == tlm::TLM_ACCEPTED && ph != sent)
    violation("accepted_phase", p, "TLM_ACCEPTED with a changed phase");
  if (r == tlm::TLM_UPDATED) {
    if (sent == tlm::END_REQ) {
      violation("phase_order", p, "TLM_UPDATED in answer to END_REQ");
    } else {
      forward_phase(p, ph);
    }
  }
  if (r == tlm::TLM_COMPLETED && in_flight_.count(&p)) complete(p);
  return r;
}

void TlmChecker::b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& t) {
  ++transactions_;
  check_request_fields(p);
  const Snapshot request = snapshot(p);
  out->b_transport(p, t);
  if (p.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE)
    violation("response_status", p, "b_transport returned with the response still TLM_INCOMPLETE_RESPONSE");
  check_unchanged(p, request);
}

unsigned TlmChecker::transport_dbg(tlm::tlm_generic_payload& p) {
  const unsigned n = out->transport_dbg(p);
  if (n > p.get_data_length())
    violation("debug_length", p,
              fmt::format("transport_dbg answered {} bytes of {}", n, p.get_data_length()));
  return n;
}

bool TlmChecker::get_direct_mem_ptr(tlm::tlm_generic_payload& p, tlm::tlm_dmi& dmi) {
  return out->get_direct_mem_ptr(p, dmi);
}

void TlmChecker::invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end) {
  in->invalidate_direct_mem_ptr(start, end);
}

}  // namespace simtlm::mem
