#include "models/mem/payload_pool.hpp"

#include <algorithm>

namespace simtlm::mem {

PayloadPool::~PayloadPool() {
  // Payloads still in flight at the end of a simulation are simply dropped with the pool.
  for (auto& s : all_) s->gp.clear_extension(s->ext), delete s->ext;
}

tlm::tlm_generic_payload& PayloadPool::get(tlm::tlm_command cmd, uint64_t addr, unsigned len) {
  Slot* s;
  if (free_.empty()) {
    all_.push_back(std::make_unique<Slot>());
    s = all_.back().get();
    s->gp.set_mm(this);
    s->ext = new RequestExt;
    s->gp.set_extension(s->ext);
    slot_of_[&s->gp] = s;
  } else {
    s = free_.back();
    free_.pop_back();
  }
  if (s->data.size() < len) s->data.resize(std::max(len, scratch_bytes_));
  auto& gp = s->gp;
  *s->ext = RequestExt{};
  gp.set_command(cmd);
  gp.set_address(addr);
  gp.set_data_length(len);
  gp.set_data_ptr(s->data.data());
  gp.set_streaming_width(len);
  gp.set_byte_enable_ptr(nullptr);
  gp.set_byte_enable_length(0);
  gp.set_dmi_allowed(false);
  gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  gp.acquire();
  return gp;
}

void PayloadPool::free(tlm::tlm_generic_payload* p) {
  p->reset();  // drops auto extensions only; our RequestExt stays attached
  free_.push_back(slot_of_.at(p));
}

}  // namespace simtlm::mem
