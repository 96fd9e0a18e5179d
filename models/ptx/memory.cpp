// Sparse paged global memory with bounds-checked buffer allocations.
#include "models/ptx/memory.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace simtlm::ptx {
namespace {

constexpr uint64_t kPageSize = uint64_t{1} << 16;
// Unmapped bytes between allocations so that a small overrun lands outside every allocation.
constexpr uint64_t kGuardGap = 4096;

}  // namespace

uint64_t GlobalMemory::allocate(uint64_t size, uint64_t align, const std::string& name) {
  align = std::max<uint64_t>(align, 256);
  if ((align & (align - 1)) != 0) throw std::invalid_argument("allocation alignment must be a power of two");
  uint64_t base = (next_ + align - 1) & ~(align - 1);
  if (base + size + kGuardGap >= kLocalWindow) throw std::length_error("global memory exhausted: " + name);
  next_ = base + std::max<uint64_t>(size, 1) + kGuardGap;
  // Allocations are handed out in increasing address order, so appending keeps allocations_ sorted.
  by_base_[base] = allocations_.size();
  allocations_.push_back(Allocation{base, size, name});
  return base;
}

const Allocation* GlobalMemory::find(uint64_t addr, uint64_t bytes) const {
  if (cached_allocation_ < allocations_.size()) {
    const Allocation& a = allocations_[cached_allocation_];
    if (addr - a.base < a.size && bytes <= a.size - (addr - a.base)) return &a;
  }
  auto it = by_base_.upper_bound(addr);
  if (it == by_base_.begin()) return nullptr;
  --it;
  const Allocation& a = allocations_[it->second];
  if (addr - a.base >= a.size || bytes > a.size - (addr - a.base)) return nullptr;
  cached_allocation_ = it->second;
  return &a;
}

uint8_t* GlobalMemory::page(uint64_t addr, bool create) const {
  uint64_t key = addr >> kPageBits;
  if (key == cached_page_key_) return cached_page_;
  auto it = pages_.find(key);
  if (it != pages_.end()) {
    cached_page_key_ = key;
    cached_page_ = it->second.get();
    return cached_page_;
  }
  if (!create) return nullptr;
  auto fresh = std::make_unique<uint8_t[]>(kPageSize);  // value-initialized: zero
  uint8_t* raw = fresh.get();
  pages_.emplace(key, std::move(fresh));
  return raw;
}

void GlobalMemory::read(uint64_t addr, void* dst, uint64_t bytes) const {
  auto* out = static_cast<uint8_t*>(dst);
  while (bytes > 0) {
    uint64_t in_page = addr & (kPageSize - 1);
    uint64_t chunk = std::min(bytes, kPageSize - in_page);
    const uint8_t* p = page(addr, false);
    if (p) {
      std::memcpy(out, p + in_page, chunk);
    } else {
      std::memset(out, 0, chunk);  // never written: reads as zero without creating a page
    }
    out += chunk;
    addr += chunk;
    bytes -= chunk;
  }
}

void GlobalMemory::write(uint64_t addr, const void* src, uint64_t bytes) {
  const auto* in = static_cast<const uint8_t*>(src);
  while (bytes > 0) {
    uint64_t in_page = addr & (kPageSize - 1);
    uint64_t chunk = std::min(bytes, kPageSize - in_page);
    std::memcpy(page(addr, true) + in_page, in, chunk);
    in += chunk;
    addr += chunk;
    bytes -= chunk;
  }
}

}  // namespace simtlm::ptx
