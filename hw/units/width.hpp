// SIMD width checks shared by the unit models.
#pragma once

#include <cstdint>

namespace simtlm::hw {

// Throws std::invalid_argument unless `width` is a power of two in [8, 64].
void check_simd_width(uint32_t width);

// All-ones mask of `width` lanes (width <= 64).
inline uint64_t lane_mask_of(uint32_t width) {
  return width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
}

}  // namespace simtlm::hw
