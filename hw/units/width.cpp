#include "hw/units/width.hpp"

#include <bit>
#include <stdexcept>
#include <string>

namespace simtlm::hw {

void check_simd_width(uint32_t width) {
  if (width < 8 || width > 64 || !std::has_single_bit(width)) {
    throw std::invalid_argument("SIMD width must be a power of two in [8, 64], got " + std::to_string(width));
  }
}

}  // namespace simtlm::hw
