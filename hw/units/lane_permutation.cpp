#include "hw/units/lane_permutation.hpp"

#include <bit>
#include <stdexcept>
#include <string>

#include "hw/units/width.hpp"

namespace simtlm::hw {

uint32_t balanced_xor_mask(uint32_t warp, uint32_t width) {
  const uint32_t lane_bits = width - 1;
  const uint32_t even_mask = (warp >> 1) & lane_bits;
  return (warp & 1) ? even_mask ^ lane_bits : even_mask;
}

PermutationTable::PermutationTable(uint32_t width, uint32_t num_warp_ids) : width_(width) {
  check_simd_width(width);
  if (num_warp_ids == 0 || !std::has_single_bit(num_warp_ids)) {
    throw std::invalid_argument("number of warp ids must be a power of two");
  }
  table_.assign(num_warp_ids, 0);
}

void PermutationTable::check_warp(uint32_t warp) const {
  if (warp >= table_.size()) {
    throw std::out_of_range("warp id " + std::to_string(warp) + " outside the permutation table of " +
                            std::to_string(table_.size()));
  }
}

void PermutationTable::load(uint32_t warp, uint32_t xor_mask) {
  check_warp(warp);
  if (xor_mask >= width_) {
    throw std::invalid_argument("XOR mask " + std::to_string(xor_mask) + " does not fit SIMD width " +
                                std::to_string(width_));
  }
  table_[warp] = xor_mask;
}

uint32_t PermutationTable::xor_mask(uint32_t warp) {
  check_warp(warp);
  switch (mode_) {
    case PermutationMode::kTable:
      return table_[warp];
    case PermutationMode::kBalanced:
      return balanced_xor_mask(warp, width_);
    case PermutationMode::kIdentity:
      break;
  }
  return 0;
}

uint32_t PermutationTable::home_lane(uint32_t warp, uint32_t lane) {
  if (lane >= width_) throw std::out_of_range("lane " + std::to_string(lane) + " outside the warp");
  return lane ^ xor_mask(warp);
}

uint64_t PermutationTable::permute_mask(uint32_t warp, uint64_t logical_mask) {
  const uint32_t mask = xor_mask(warp);
  uint64_t physical = 0;
  for (uint64_t rest = logical_mask & lane_mask_of(width_); rest != 0; rest &= rest - 1) {
    physical |= uint64_t{1} << (static_cast<uint32_t>(std::countr_zero(rest)) ^ mask);
  }
  return physical;
}

}  // namespace simtlm::hw
