#include "hw/units/priority_encoder_compactor.hpp"

#include <bit>
#include <stdexcept>
#include <string>

#include "hw/units/width.hpp"

namespace simtlm::hw {

PriorityEncoderCompactor::PriorityEncoderCompactor(uint32_t width, uint32_t max_warps)
    : width_(width), max_warps_(max_warps) {
  check_simd_width(width);
  if (max_warps == 0 || max_warps > 256) throw std::invalid_argument("max_warps must be in [1, 256]");
}

void PriorityEncoderCompactor::load(std::span<const uint64_t> warp_masks) {
  if (warp_masks.size() > max_warps_) {
    throw std::invalid_argument(std::to_string(warp_masks.size()) + " warps exceed the compactor's " +
                                std::to_string(max_warps_));
  }
  pending_.assign(warp_masks.begin(), warp_masks.end());
  for (uint64_t& mask : pending_) mask &= lane_mask_of(width_);
}

bool PriorityEncoderCompactor::done() {
  for (uint64_t mask : pending_) {
    if (mask != 0) return false;
  }
  return true;
}

CompactedWarp PriorityEncoderCompactor::next() {
  CompactedWarp out;
  // Walking warps in increasing order gives each lane its lowest pending warp first.
  for (size_t warp = 0; warp < pending_.size(); ++warp) {
    const uint64_t claimed = pending_[warp] & ~out.lane_mask;
    for (uint64_t rest = claimed; rest != 0; rest &= rest - 1) {
      out.source_warp[static_cast<size_t>(std::countr_zero(rest))] = static_cast<uint8_t>(warp);
    }
    out.lane_mask |= claimed;
    pending_[warp] &= ~claimed;
  }
  return out;
}

std::vector<CompactedWarp> compact_all(WarpCompaction& compactor, std::span<const uint64_t> warp_masks) {
  compactor.load(warp_masks);
  std::vector<CompactedWarp> schedule;
  while (!compactor.done()) schedule.push_back(compactor.next());
  return schedule;
}

}  // namespace simtlm::hw
