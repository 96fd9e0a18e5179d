#include "models/mem/payload_pool.hpp"

#include <algorithm>

namespace simtlm::mem {

PayloadPool::~PayloadPool() {
  // Payloads still in flight at the end of a simulation are simply dropped with the pool.
  for (auto& s : all_) s->clear_extension(s->ext), delete s->ext;
}

tlm::tlm_generic_payload& PayloadPool::get(tlm::tlm_command cmd, uint64_t addr, unsigned len) {
  Slot* s;
  if (free_.empty()) {
    all_.push_back(std::make_unique<Slot>());
    s = all_.back().get();
    s->index = static_cast<uint32_t>(all_.size() - 1);
    s->set_mm(this);
    s->ext = new RequestExt;
    s->set_extension(s->ext);
  } else {
    s = free_.back();
    free_.pop_back();
  }
  if (s->data.size() < len) s->data.resize(std::max(len, scratch_bytes_));
  s->ext->clear();
  s->set_command(cmd);
  s->set_address(addr);
  s->set_data_length(len);
  s->set_data_ptr(s->data.data());
  s->set_streaming_width(len);
  s->set_byte_enable_ptr(nullptr);
  s->set_byte_enable_length(0);
  s->set_dmi_allowed(false);
  s->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  s->acquire();
  return *s;
}

void PayloadPool::set_byte_enables(tlm::tlm_generic_payload& p, const unsigned char* mask, unsigned len) {
  auto& s = static_cast<Slot&>(p);
  s.byte_enables.assign(mask, mask + len);
  s.set_byte_enable_ptr(s.byte_enables.data());
  s.set_byte_enable_length(len);
}

void PayloadPool::copy_byte_enables(tlm::tlm_generic_payload& to, const tlm::tlm_generic_payload& from) {
  const unsigned char* mask = from.get_byte_enable_ptr();
  const unsigned n = from.get_byte_enable_length();
  if (!mask || n == 0) return;
  auto& s = static_cast<Slot&>(to);
  s.byte_enables.resize(to.get_data_length());
  for (unsigned i = 0; i < to.get_data_length(); ++i) s.byte_enables[i] = mask[i % n];
  s.set_byte_enable_ptr(s.byte_enables.data());
  s.set_byte_enable_length(to.get_data_length());
}

void PayloadPool::free(tlm::tlm_generic_payload* p) {
  p->reset();  // drops auto extensions only; our RequestExt stays attached
  free_.push_back(static_cast<Slot*>(p));
}

}  // namespace simtlm::mem
