// Sparse paged global memory with bounds-checked buffer allocations.
#include "models/ptx/memory.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <stdexcept>

namespace simtlm::ptx {
namespace {

constexpr uint64_t kPageSize = uint64_t{1} << 16;
// Unmapped bytes between allocations so that a small overrun lands outside every allocation.
constexpr uint64_t kGuardGap = 4096;

}  // namespace

uint64_t GlobalMemory::allocate(uint64_t size, uint64_t align, const std::string& name, uint64_t guard) {
  align = std::max<uint64_t>(align, 256);
  if ((align & (align - 1)) != 0) throw std::invalid_argument("allocation alignment must be a power of two");
  const uint64_t gap_after = std::max(kGuardGap, guard);
  // Every step is checked: a wrapped sum would hand out an address below earlier allocations, and a
  // store to this one would land in them.
  const auto exhausted = [&] {
    return std::length_error("global memory exhausted: " + name + " (" + std::to_string(size) +
                             " bytes, aligned to " + std::to_string(align) + ", after " +
                             std::to_string(next_ - kGlobalBase) + " bytes in use; the window holds " +
                             std::to_string(kLocalWindow - kGlobalBase) + ")");
  };
  uint64_t unaligned = 0, base = 0, end = 0, next = 0;
  if (__builtin_add_overflow(next_, guard, &unaligned) || __builtin_add_overflow(unaligned, align - 1, &base))
    throw exhausted();
  base &= ~(align - 1);
  if (__builtin_add_overflow(base, std::max<uint64_t>(size, 1), &end) ||
      __builtin_add_overflow(end, gap_after, &next) || next >= kLocalWindow)
    throw exhausted();
  next_ = next;
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

std::string GlobalMemory::describe_outside(uint64_t addr, uint64_t bytes) const {
  auto after = by_base_.upper_bound(addr);
  const Allocation* next = after == by_base_.end() ? nullptr : &allocations_[after->second];
  const Allocation* previous = after == by_base_.begin() ? nullptr : &allocations_[std::prev(after)->second];
  uint64_t past = 0, before = 0;
  if (previous) {
    const uint64_t end = previous->base + previous->size;
    past = addr + bytes > end ? addr + bytes - end : 0;
  }
  if (next) before = next->base - addr;
  if (previous && (!next || past <= before)) {
    if (addr >= previous->base && addr + bytes <= previous->base + previous->size)
      return "inside buffer " + previous->name;
    return std::to_string(past) + " bytes past the end of buffer " + previous->name + " (" +
           std::to_string(previous->size) + " bytes)";
  }
  if (next) return std::to_string(before) + " bytes before buffer " + next->name;
  return "no buffer is allocated";
}

void GlobalMemory::note_out_of_bounds(bool store, uint64_t addr, uint64_t bytes,
                                      const std::function<std::string()>& where) {
  ++(store ? log_.stores : log_.loads);
  if (log_.first.size() >= OutOfBoundsLog::kKept) return;
  char hex[32];
  std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(addr));
  log_.first.push_back(std::string(store ? "store" : "load") + " of " + std::to_string(bytes) + " bytes at " +
                       hex + " (" + describe_outside(addr, bytes) + ") at " + where());
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

uint8_t* GlobalMemory::direct(uint64_t addr, uint64_t& first, uint64_t& last) {
  const Allocation* a = find(addr, 1);
  if (!a) return nullptr;
  const uint64_t page_first = addr & ~(kPageSize - 1);
  first = std::max(a->base, page_first);
  last = std::min(a->base + a->size - 1, page_first + kPageSize - 1);
  return page(addr, true) + (first - page_first);
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
