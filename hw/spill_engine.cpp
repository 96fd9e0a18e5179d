#include "hw/spill_engine.hpp"

#include <algorithm>
#include <initializer_list>
#include <stdexcept>
#include <string>

namespace simtlm::hw {

void SpillEngine::append_state(std::vector<uint64_t>& out) const {
  out.push_back(uint64_t(memory_.size()) << 32 | onchip_.size());
  for (const std::vector<StackEntry>* part : {&memory_, &onchip_}) {
    for (const StackEntry& e : *part) {
      out.push_back(uint64_t(e.kind) << 32 | e.pc);
      out.push_back(uint64_t(e.mask) << 32 | e.reconvergence_pc);
    }
  }
}

SpillEngine::SpillEngine(const StackParams& params, uint32_t warp)
    : capacity_(params.onchip_entries),
      chunk_(params.chunk_entries),
      entry_bytes_(params.entry_bytes),
      region_base_(params.spill_base + uint64_t(warp) * params.region_bytes),
      region_bytes_(params.region_bytes) {
  if (chunk_ == 0 || chunk_ > capacity_) {
    throw std::invalid_argument("spill chunk of " + std::to_string(chunk_) + " entries with " +
                                std::to_string(capacity_) + " on-chip entries");
  }
  onchip_.reserve(capacity_);
}

void SpillEngine::clear() {
  onchip_.clear();
  memory_.clear();
  requests_.clear();
}

uint32_t SpillEngine::push(const StackEntry& e) {
  uint32_t spilled = 0;
  if (onchip_.size() == capacity_) {
    // The oldest entries are the ones needed last, so they leave; slots are indexed by stack position so a
    // chunk is one contiguous write (32 bytes with the defaults: one L2 sector, as the paper notes).
    const size_t first = memory_.size();
    if ((first + chunk_) * entry_bytes_ > region_bytes_) {
      throw std::length_error("reconvergence stack overflows its spill region of " +
                              std::to_string(region_bytes_) + " bytes");
    }
    memory_.insert(memory_.end(), onchip_.begin(), onchip_.begin() + chunk_);
    onchip_.erase(onchip_.begin(), onchip_.begin() + chunk_);
    requests_.push_back(MemRequest{slot_address(first), chunk_ * entry_bytes_, true});
    spilled = 1;
  }
  onchip_.push_back(e);
  return spilled;
}

uint32_t SpillEngine::fill_if_empty() {
  if (!onchip_.empty() || memory_.empty()) return 0;
  const size_t n = std::min<size_t>(chunk_, memory_.size());
  const size_t first = memory_.size() - n;
  onchip_.assign(memory_.begin() + first, memory_.end());
  memory_.resize(first);
  requests_.push_back(MemRequest{slot_address(first), uint32_t(n * entry_bytes_), false});
  return 1;
}

uint32_t SpillEngine::pop(StackEntry* out) {
  const uint32_t filled = fill_if_empty();
  if (onchip_.empty()) throw std::logic_error("pop of an empty reconvergence stack");
  *out = onchip_.back();
  onchip_.pop_back();
  return filled;
}

std::vector<MemRequest> SpillEngine::take_requests() {
  std::vector<MemRequest> out;
  out.swap(requests_);
  return out;
}

}  // namespace simtlm::hw
