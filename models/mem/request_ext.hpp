#pragma once
// Who caused a memory request, whether it is an atomic, and whether the SM's L1 held its line. Who caused it
// is for stats and tracing only; the atomic targets are the one field that changes timing: a cache without an
// atomic unit passes the request through, the L2's atomic unit serialises the operations
// (docs/memory-system.md). A third-party target may ignore the extension; it then sees an atomic as a read.
#include <cstdint>
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

}  // namespace simtlm::mem
