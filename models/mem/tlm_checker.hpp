#pragma once
// A TLM-2.0 base-protocol checker for one link (run.tlm_check; docs/systemc.md): a module placed between an
// initiator socket and the target socket it was bound to. Every call (nb_transport_fw/bw, b_transport,
// transport_dbg, get_direct_mem_ptr, invalidate_direct_mem_ptr) passes through unchanged, and each rule of
// the base protocol a call breaks is reported through sc_report (SC_ERROR, message type "simtlm/tlm_check")
// naming the link, the rule, the command, the address and the phase. Written for this project from IEEE
// 1666-2011 clauses 14 (generic payload) and 15 (base protocol and phases); the rules it checks:
//   phase_order        a phase out of the sequence BEGIN_REQ, END_REQ, BEGIN_RESP, END_RESP for its payload,
//                      or on the wrong path (END_REQ and BEGIN_RESP only backward, the others only forward)
//   unknown_phase      a phase the base protocol does not define
//   payload_reuse      BEGIN_REQ with a payload whose previous transaction on this link has not ended
//   request_exclusion  BEGIN_REQ while an earlier request on this link has not seen END_REQ or BEGIN_RESP
//   response_exclusion BEGIN_RESP while an earlier response on this link has not seen END_RESP
//   initial_status     a request whose response status is not TLM_INCOMPLETE_RESPONSE
//   payload_fields     a request with no data pointer, a zero data length or a zero streaming width
//   response_status    a response (BEGIN_RESP, TLM_COMPLETED, the end of b_transport) still
//                      TLM_INCOMPLETE_RESPONSE
//   attributes_changed the target changed the command, address, data pointer or length, byte enables or
//                      streaming width of a request between BEGIN_REQ and its response
//   accepted_phase     a call returned TLM_ACCEPTED but changed the phase
//   memory_manager     a payload with a memory manager passed with a reference count of 0
//   debug_length       transport_dbg answered more bytes than the payload holds
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <string>
#include <systemc>
#include <tlm>
#include <unordered_map>
#include <vector>

namespace simtlm::mem {

inline constexpr const char* kTlmCheckMsgType = "simtlm/tlm_check";

class TlmChecker : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<TlmChecker> in;      // the initiator binds here
  tlm_utils::simple_initiator_socket<TlmChecker> out;  // bind to the target

  explicit TlmChecker(sc_core::sc_module_name name);

  // The rule of every violation seen, in order (the reports carry the details).
  const std::vector<std::string>& violations() const { return violations_; }
  uint64_t transactions() const { return transactions_; }  // BEGIN_REQs and b_transport calls checked

 private:
  enum class Stage : uint8_t { request, request_ended, response };
  struct Snapshot {
    tlm::tlm_command command = tlm::TLM_IGNORE_COMMAND;
    uint64_t address = 0;
    unsigned char* data = nullptr;
    unsigned length = 0;
    unsigned char* byte_enables = nullptr;
    unsigned byte_enable_length = 0;
    unsigned streaming_width = 0;
  };
  struct InFlight {
    Stage stage = Stage::request;
    Snapshot request;
  };

  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_core::sc_time& t);
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& p, tlm::tlm_phase& ph, sc_core::sc_time& t);
  void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& t);
  unsigned transport_dbg(tlm::tlm_generic_payload& p);
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& p, tlm::tlm_dmi& dmi);
  void invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end);

  // The state changes of a phase arriving on the forward (BEGIN_REQ, END_RESP) or backward path.
  void forward_phase(tlm::tlm_generic_payload& p, const tlm::tlm_phase& ph);
  void backward_phase(tlm::tlm_generic_payload& p, const tlm::tlm_phase& ph);
  void begin_request(tlm::tlm_generic_payload& p);
  void begin_response(tlm::tlm_generic_payload& p, InFlight& tx);
  void complete(tlm::tlm_generic_payload& p);  // TLM_COMPLETED: the transaction ends
  void check_request_fields(tlm::tlm_generic_payload& p);
  void check_unchanged(tlm::tlm_generic_payload& p, const Snapshot& request);
  void violation(const std::string& rule, const tlm::tlm_generic_payload& p, const std::string& detail);
  static Snapshot snapshot(const tlm::tlm_generic_payload& p);

  std::unordered_map<const tlm::tlm_generic_payload*, InFlight> in_flight_;
  const tlm::tlm_generic_payload* request_open_ = nullptr;   // between BEGIN_REQ and END_REQ/BEGIN_RESP
  const tlm::tlm_generic_payload* response_open_ = nullptr;  // between BEGIN_RESP and END_RESP
  std::vector<std::string> violations_;
  uint64_t transactions_ = 0;
};

}  // namespace simtlm::mem
