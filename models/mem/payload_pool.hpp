#pragma once
// Pooled generic payloads (tlm_mm_interface). Each payload owns a scratch data buffer and a RequestExt
// for its whole life: the functional model owns values, so the buffer only keeps third-party targets that
// copy data from being handed a null pointer.
#include <memory>
#include <tlm>
#include <unordered_map>
#include <vector>

#include "models/mem/request_ext.hpp"

namespace simtlm::mem {

class PayloadPool : public tlm::tlm_mm_interface {
 public:
  explicit PayloadPool(unsigned scratch_bytes = 256) : scratch_bytes_(scratch_bytes) {}
  ~PayloadPool() override;
  PayloadPool(const PayloadPool&) = delete;
  PayloadPool& operator=(const PayloadPool&) = delete;

  // Returns a payload with reference count 1, a zeroed RequestExt, the given command/address/length and
  // response status TLM_INCOMPLETE_RESPONSE. Call release() when done.
  tlm::tlm_generic_payload& get(tlm::tlm_command cmd, uint64_t addr, unsigned len);
  void free(tlm::tlm_generic_payload* p) override;

  size_t allocated() const { return all_.size(); }
  size_t in_use() const { return all_.size() - free_.size(); }

 private:
  struct Slot {
    tlm::tlm_generic_payload gp;
    std::vector<unsigned char> data;
    RequestExt* ext = nullptr;
  };
  unsigned scratch_bytes_;
  std::vector<std::unique_ptr<Slot>> all_;
  std::vector<Slot*> free_;
  std::unordered_map<const tlm::tlm_generic_payload*, Slot*> slot_of_;
};

}  // namespace simtlm::mem
