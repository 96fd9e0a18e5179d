#pragma once
// The bytes behind the memory system, for debug transport (docs/tlm-protocol.md). The timing model moves no
// data: the functional model owns device memory (ptx::GlobalMemory, in the launch's DeviceImage) and has
// already read or written it when a request enters the memory system. A DRAM channel given a BackingStore
// answers transport_dbg from it, and grants DMI over it; without one, transport_dbg answers 0 bytes.
#include <cstdint>

#include "models/ptx/memory.hpp"

namespace simtlm::mem {

class BackingStore {
 public:
  virtual ~BackingStore() = default;
  // How many bytes from `addr` on (at most `bytes`) exist, contiguously.
  virtual uint64_t available(uint64_t addr, uint64_t bytes) const = 0;
  // Of available() bytes only.
  virtual void read(uint64_t addr, uint8_t* dst, uint64_t bytes) const = 0;
  virtual void write(uint64_t addr, const uint8_t* src, uint64_t bytes) = 0;
  // For DMI: host bytes of [first, last] around addr (ptx::GlobalMemory::direct), or nullptr: none.
  virtual uint8_t* direct(uint64_t /*addr*/, uint64_t& /*first*/, uint64_t& /*last*/) { return nullptr; }
};

// Device memory as the functional model holds it: the bytes of its allocations (buffers, global and const
// variables). Local memory has timing addresses of its own in the timing model and no bytes here.
class GlobalMemoryStore final : public BackingStore {
 public:
  explicit GlobalMemoryStore(ptx::GlobalMemory& memory) : memory_(memory) {}
  uint64_t available(uint64_t addr, uint64_t bytes) const override {
    uint64_t n = 0;  // across adjacent allocations
    while (n < bytes) {
      const ptx::Allocation* a = memory_.find(addr + n, 1);
      if (!a) break;
      const uint64_t left = a->base + a->size - (addr + n);
      n += left < bytes - n ? left : bytes - n;
    }
    return n;
  }
  void read(uint64_t addr, uint8_t* dst, uint64_t bytes) const override { memory_.read(addr, dst, bytes); }
  void write(uint64_t addr, const uint8_t* src, uint64_t bytes) override { memory_.write(addr, src, bytes); }
  uint8_t* direct(uint64_t addr, uint64_t& first, uint64_t& last) override {
    return memory_.direct(addr, first, last);
  }

 private:
  ptx::GlobalMemory& memory_;
};

}  // namespace simtlm::mem
