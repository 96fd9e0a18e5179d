// Global memory: sparse and paged, 64-bit addresses, with buffer allocations so out-of-bounds accesses are
// found.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace simtlm::ptx {

// Windows of the generic address space. Global allocations live below kSharedWindow.
inline constexpr uint64_t kGlobalBase = 0x0000'0001'0000'0000ull;
inline constexpr uint64_t kSharedWindow = 0x0000'7f00'0000'0000ull;  // + CTA shared offset
inline constexpr uint64_t kLocalWindow = 0x0000'7e00'0000'0000ull;   // + thread local offset
inline constexpr uint64_t kWindowSize = 0x0000'0001'0000'0000ull;

struct Allocation {
  uint64_t base = 0;
  uint64_t size = 0;
  std::string name;  // buffer or symbol name, for messages
};

// What an access outside every allocation does: fail the kernel (error), or read zeros and drop stores while
// counting them (warn), so a researcher can see how far a kernel strays before fixing it.
enum class OutOfBounds { error, warn };

struct OutOfBoundsLog {
  static constexpr size_t kKept = 8;  // locations kept verbatim; the rest are only counted
  uint64_t loads = 0, stores = 0;
  std::vector<std::string> first;  // "load of 4 bytes at 0x..: 4 bytes past the end of buffer b at <where>"
};

class GlobalMemory {
 public:
  // Reserves size bytes aligned to align (at least 256) and returns the address. Contents start as zero.
  // At least `guard` unmapped bytes stay before and after the allocation.
  uint64_t allocate(uint64_t size, uint64_t align, const std::string& name, uint64_t guard = 0);
  // The allocation that holds [addr, addr + bytes), or nullptr.
  const Allocation* find(uint64_t addr, uint64_t bytes) const;
  void read(uint64_t addr, void* dst, uint64_t bytes) const;
  void write(uint64_t addr, const void* src, uint64_t bytes);
  // Direct access (TLM DMI): the host bytes of [first, last], the largest range around addr inside one
  // allocation and one page, or nullptr when addr is in no allocation. The pointer holds the byte at `first`
  // and stays valid for the memory's lifetime.
  uint8_t* direct(uint64_t addr, uint64_t& first, uint64_t& last);
  const std::vector<Allocation>& allocations() const { return allocations_; }

  // Where [addr, addr + bytes) lies relative to the nearest allocation: "256 bytes before buffer J",
  // "4 bytes past the end of buffer J" (the access reaches 4 bytes beyond the last byte).
  std::string describe_outside(uint64_t addr, uint64_t bytes) const;
  void set_out_of_bounds(OutOfBounds mode) { out_of_bounds_ = mode; }
  bool tolerates_out_of_bounds() const { return out_of_bounds_ == OutOfBounds::warn; }
  // Counts an access outside every allocation in warn mode; `where` names kernel, CTA, thread and PC and is
  // only called for the first few.
  void note_out_of_bounds(bool store, uint64_t addr, uint64_t bytes,
                          const std::function<std::string()>& where);
  const OutOfBoundsLog& out_of_bounds_log() const { return log_; }

 private:
  static constexpr unsigned kPageBits = 16;
  uint8_t* page(uint64_t addr, bool create) const;
  mutable std::unordered_map<uint64_t, std::unique_ptr<uint8_t[]>> pages_;
  std::vector<Allocation> allocations_;  // sorted by base
  std::map<uint64_t, size_t> by_base_;   // base -> index in allocations_
  uint64_t next_ = kGlobalBase;
  OutOfBounds out_of_bounds_ = OutOfBounds::error;
  OutOfBoundsLog log_;
  // One-entry caches: consecutive lanes almost always touch the same page and the same allocation.
  mutable uint64_t cached_page_key_ = ~uint64_t{0};
  mutable uint8_t* cached_page_ = nullptr;
  mutable size_t cached_allocation_ = ~size_t{0};
};

}  // namespace simtlm::ptx
