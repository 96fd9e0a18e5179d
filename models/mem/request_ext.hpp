#pragma once
// Who caused a memory request. Carried on every payload for stats and tracing only: no component
// changes its timing on these fields, so a third-party target may ignore the extension.
#include <cstdint>
#include <tlm>

namespace simtlm::mem {

struct RequestExt : tlm::tlm_extension<RequestExt> {
  int sm = -1;
  int warp = -1;
  uint32_t pc = 0;
  uint32_t lane_mask = 0;

  tlm::tlm_extension_base* clone() const override { return new RequestExt(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    *this = static_cast<const RequestExt&>(other);
  }
};

}  // namespace simtlm::mem
