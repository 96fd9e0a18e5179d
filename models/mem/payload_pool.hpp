#pragma once
// Pooled generic payloads (tlm_mm_interface). Each payload owns a scratch data buffer and a RequestExt
// for its whole life: the functional model owns values, so the buffer only keeps third-party targets that
// copy data from being handed a null pointer.
#include <memory>
#include <tlm>
#include <vector>

#include "models/mem/request_ext.hpp"

namespace simtlm::mem {

class PayloadPool : public tlm::tlm_mm_interface {
 public:
  explicit PayloadPool(unsigned scratch_bytes = 256) : scratch_bytes_(scratch_bytes) {}
  ~PayloadPool() override;
  PayloadPool(const PayloadPool&) = delete;
  PayloadPool& operator=(const PayloadPool&) = delete;

  // Returns a payload with reference count 1, a cleared RequestExt, the given command/address/length and
  // response status TLM_INCOMPLETE_RESPONSE. Call release() when done.
  tlm::tlm_generic_payload& get(tlm::tlm_command cmd, uint64_t addr, unsigned len);
  void free(tlm::tlm_generic_payload* p) override;
  // A number below allocated() that stays with a payload of this pool for its whole life, so an owner can
  // keep per-request state in a vector instead of a map keyed by the payload.
  static uint32_t index(const tlm::tlm_generic_payload& p) { return static_cast<const Slot&>(p).index; }
  // Byte enables of a payload of this pool, one per data byte (0xff enabled, 0 disabled), kept in the
  // payload's own buffer: `mask` may go away after the call. Cleared by get().
  static void set_byte_enables(tlm::tlm_generic_payload& p, const unsigned char* mask, unsigned len);
  // Those of `from` (any payload), when the lengths agree: what a cache passes down with a store it forwards.
  static void copy_byte_enables(tlm::tlm_generic_payload& to, const tlm::tlm_generic_payload& from);

  size_t allocated() const { return all_.size(); }
  size_t in_use() const { return all_.size() - free_.size(); }

 private:
  // Every payload of the pool is a Slot, so free() and index() find their slot without a lookup.
  struct Slot : tlm::tlm_generic_payload {
    std::vector<unsigned char> data;
    std::vector<unsigned char> byte_enables;
    RequestExt* ext = nullptr;
    uint32_t index = 0;
  };
  unsigned scratch_bytes_;
  std::vector<std::unique_ptr<Slot>> all_;
  std::vector<Slot*> free_;
};

}  // namespace simtlm::mem
