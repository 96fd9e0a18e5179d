#include "hw/units/popular_block_selector.hpp"

#include <stdexcept>
#include <string>

#include "hw/units/width.hpp"

namespace simtlm::hw {

PopularBlockSelector::PopularBlockSelector(uint32_t width, uint32_t address_bits)
    : width_(width), address_bits_(address_bits) {
  check_simd_width(width);
  if (address_bits != 32 && address_bits != 64) throw std::invalid_argument("address bits must be 32 or 64");
}

HerdedLoad PopularBlockSelector::select(std::span<const uint64_t> address, uint64_t active,
                                        uint32_t line_shift) {
  if (address.size() != width_) {
    throw std::invalid_argument("expected " + std::to_string(width_) + " addresses, got " +
                                std::to_string(address.size()));
  }
  if (line_shift >= address_bits_) throw std::invalid_argument("line shift must be below the address bits");
  const uint64_t address_mask = address_bits_ == 64 ? ~uint64_t{0} : (uint64_t{1} << address_bits_) - 1;
  const uint64_t offset_mask = (uint64_t{1} << line_shift) - 1;
  active &= lane_mask_of(width_);

  HerdedLoad out;
  bool found = false;
  for (uint32_t lane = 0; lane < width_; ++lane) {
    out.address[lane] = address[lane] & address_mask;
    if (!((active >> lane) & 1)) continue;
    const uint64_t block = out.address[lane] >> line_shift;
    uint32_t count = 0;
    for (uint32_t other = 0; other < width_; ++other) {
      if (((active >> other) & 1) && ((address[other] & address_mask) >> line_shift) == block) ++count;
    }
    // Strictly greater: an equal count found later never displaces the lower lane's block.
    if (!found || count > out.count) {
      out.block = block;
      out.count = count;
      found = true;
    }
  }
  for (uint32_t lane = 0; lane < width_; ++lane) {
    if ((active >> lane) & 1) {
      out.address[lane] = ((out.block << line_shift) | (out.address[lane] & offset_mask)) & address_mask;
    }
  }
  return out;
}

}  // namespace simtlm::hw
