#pragma once
// Who caused a memory request, whether it is an atomic, and whether the SM's L1 held its line. Who caused it
// is for stats and tracing only; the atomic targets are the one field that changes timing: a cache without an
// atomic unit passes the request through, the L2's atomic unit serialises the operations
// (docs/memory-system.md). A third-party target may ignore the extension; it then sees an atomic as a read.
#include <cstdint>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "models/mem/atomic_target.hpp"

namespace simtlm::mem {

struct RequestExt : tlm::tlm_extension<RequestExt> {
  int sm = -1;
  int warp = -1;
  uint32_t pc = 0;
  uint32_t lane_mask = 0;
  std::vector<AtomicTarget> atomics;  // empty: not an atomic; otherwise distinct words, in lane order
  // Marked by the SM's L1 when it takes the request (an L1Cache marks, an L2 does not): it was looked up,
  // and every sector it asks for was there. Dynamic warp subdivision splits a warp on these marks.
  bool looked_up = false;
  bool hit = false;
  // A load that must see other SMs' writes (ld.volatile, .cg/.cv, .acquire/.relaxed at .gpu/.sys scope): an
  // L1, which nothing keeps coherent, passes it to the next level uncached (counted in `bypasses`).
  bool coherent = false;
  // Set with an error response (any status but TLM_OK_RESPONSE): the component that answered it, as the
  // first of ours that saw it names it (docs/tlm-protocol.md, Error responses). Empty otherwise.
  std::string error_at;

  bool is_atomic() const { return !atomics.empty(); }
  // As a fresh extension, but the atomic targets keep their capacity (a pooled payload allocates once).
  void clear() {
    std::vector<AtomicTarget> keep = std::move(atomics);
    keep.clear();
    *this = RequestExt{};
    atomics = std::move(keep);
  }
  tlm::tlm_extension_base* clone() const override { return new RequestExt(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    *this = static_cast<const RequestExt&>(other);
  }
};

// A response with an error status (anything but TLM_OK_RESPONSE) coming back from `below`: names `below` as
// where it was answered, unless a component further down already did.
inline void mark_error_source(tlm::tlm_generic_payload& p, const std::string& below) {
  if (p.is_response_ok()) return;
  if (auto* ext = p.get_extension<RequestExt>(); ext && ext->error_at.empty()) ext->error_at = below;
}

// What a component tells its initiator when the socket it binds to is not one of ours: the module the socket
// belongs to (its parent), else the socket itself.
inline std::string socket_owner(const sc_core::sc_object& socket) {
  const sc_core::sc_object* parent = socket.get_parent_object();
  return parent ? parent->name() : socket.name();
}

// The caches and the crossbar keep no bytes (docs/tlm-protocol.md, DMI; DRAM channels grant it over their
// backing store): their get_direct_mem_ptr is refused for the whole address space, so an initiator need not
// ask again.
inline bool refuse_dmi(tlm::tlm_dmi& dmi) {
  dmi.allow_none();
  dmi.set_start_address(0);
  dmi.set_end_address(~sc_dt::uint64{0});
  return false;
}

}  // namespace simtlm::mem
