#include "hw/units/permutations.hpp"

#include <bit>
#include <stdexcept>
#include <string>

#include "common/prng.hpp"

namespace simtlm::hw {
namespace {

constexpr std::string_view kNames[] = {
    "identity", "balanced", "odd_even", "xor_half", "random", "wid", "rev_wid", "flip_odd", "rotate_odd_1",
};
static_assert(std::size(kNames) == std::size(kAllNamedPermutations));

bool is_odd(uint32_t warp) {
  return (warp & 1) != 0;
}

// Reverses the low `bits` bits of `value`.
uint32_t reverse_bits(uint32_t value, uint32_t bits) {
  uint32_t reversed = 0;
  for (uint32_t i = 0; i < bits; ++i) reversed |= ((value >> i) & 1) << (bits - 1 - i);
  return reversed;
}

}  // namespace

std::optional<NamedPermutation> parse_permutation(std::string_view name) {
  for (size_t i = 0; i < std::size(kNames); ++i) {
    if (kNames[i] == name) return kAllNamedPermutations[i];
  }
  return std::nullopt;
}

std::string_view permutation_name(NamedPermutation permutation) {
  return kNames[static_cast<size_t>(permutation)];
}

bool is_xor_permutation(NamedPermutation permutation) {
  return permutation != NamedPermutation::kRotateOdd1;
}

LanePermutationMap::LanePermutationMap(NamedPermutation permutation, uint32_t width, uint64_t seed)
    : permutation_(permutation), width_(width) {
  if (width < 2 || width > 64 || !std::has_single_bit(width)) {
    throw std::invalid_argument("permutation width must be a power of two in [2, 64], got " +
                                std::to_string(width));
  }
  if (permutation == NamedPermutation::kRandom) {
    // Warp w takes the (w+1)-th draw, so a mask depends only on (seed, w), never on how many warps are asked.
    common::SplitMix64 rng(seed);
    random_masks_.resize(kMaxWarps);
    for (uint32_t& mask : random_masks_) mask = static_cast<uint32_t>(rng.next() & (width - 1));
  }
}

void LanePermutationMap::check_warp(uint32_t warp) const {
  if (warp >= kMaxWarps) {
    throw std::out_of_range("warp " + std::to_string(warp) + " beyond the " + std::to_string(kMaxWarps) +
                            " warps of the largest CTA");
  }
}

uint32_t LanePermutationMap::xor_mask(uint32_t warp) const {
  check_warp(warp);
  const uint32_t all_lanes = width_ - 1;
  // Warp ids wrap modulo W (modulo 2W for balanced, whose even/odd pairs cover W masks with 2W warps), as
  // the permutation table repeats for CTAs with more warps than masks (Figure 9 (a), "repeat above").
  switch (permutation_) {
    case NamedPermutation::kIdentity:
      return 0;
    case NamedPermutation::kBalanced:
      return balanced_xor_mask(warp, width_);
    case NamedPermutation::kOddEven:
      return is_odd(warp) ? 1 : 0;
    case NamedPermutation::kXorHalf:
      return is_odd(warp) ? width_ / 2 : 0;
    case NamedPermutation::kRandom:
      return random_masks_[warp];
    case NamedPermutation::kWid:
      return warp & all_lanes;
    case NamedPermutation::kRevWid:
      return reverse_bits(warp & all_lanes, static_cast<uint32_t>(std::countr_zero(width_)));
    case NamedPermutation::kFlipOdd:
      return is_odd(warp) ? all_lanes : 0;
    case NamedPermutation::kRotateOdd1:
      break;
  }
  throw std::logic_error(std::string(permutation_name(permutation_)) +
                         " is not an XOR permutation: the permutation table cannot hold it");
}

uint32_t LanePermutationMap::home_lane(uint32_t warp, uint32_t lane) const {
  if (lane >= width_) throw std::out_of_range("lane " + std::to_string(lane) + " outside the warp");
  if (permutation_ == NamedPermutation::kRotateOdd1) {
    check_warp(warp);
    return is_odd(warp) ? (lane + 1) & (width_ - 1) : lane;
  }
  return lane ^ xor_mask(warp);
}

uint32_t LanePermutationMap::logical_lane(uint32_t warp, uint32_t home) const {
  if (home >= width_) throw std::out_of_range("lane " + std::to_string(home) + " outside the warp");
  if (permutation_ == NamedPermutation::kRotateOdd1) {
    check_warp(warp);
    return is_odd(warp) ? (home + width_ - 1) & (width_ - 1) : home;
  }
  return home ^ xor_mask(warp);  // An XOR is its own inverse.
}

std::vector<uint32_t> LanePermutationMap::xor_table(uint32_t num_warps) const {
  std::vector<uint32_t> masks(num_warps);
  for (uint32_t warp = 0; warp < num_warps; ++warp) masks[warp] = xor_mask(warp);
  return masks;
}

void LanePermutationMap::load_into(PermutationTable& table) const {
  if (table.width() != width_) {
    throw std::invalid_argument("permutation table of width " + std::to_string(table.width()) +
                                " cannot hold a width-" + std::to_string(width_) + " permutation");
  }
  for (uint32_t warp = 0; warp < table.num_warp_ids(); ++warp) table.load(warp, xor_mask(warp));
  table.set_mode(PermutationMode::kTable);
}

}  // namespace simtlm::hw
