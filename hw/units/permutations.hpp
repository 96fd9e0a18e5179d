// The named SIMD lane permutations of the SLP paper (Section 4, Figures 7 and 9) and the definitions chosen
// for the ones the paper only names (docs/slp.md). A permutation moves logical lane l of CTA warp w to
// physical
// ("home") lane home_lane(w, l); it is fixed when the warp is launched.
//
// Every permutation except rotate_odd_1 is an XOR of the logical lane with a per-warp mask, which is what the
// permutation table (PermutationTable, rtl/slp_permutation_unit.v) can hold: load_into() fills it. Rotation
// is not an XOR, so rotate_odd_1 exists only as the general home_lane() mapping, for analysis and the
// compaction model, not for the XOR hardware.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "hw/units/lane_permutation.hpp"

namespace simtlm::hw {

enum class NamedPermutation : uint8_t {
  kIdentity,    // No SLP: home lane == logical lane.
  kBalanced,    // Equation 2: even warp w XORs w/2, odd warp the bitwise inverse of its even partner's mask.
  kOddEven,     // Odd warps swap neighbouring lanes (XOR 1), even warps as-is [Fung et al.].
  kXorHalf,     // Odd warps swap the two half-warps (XOR W/2), even warps as-is (Section 4.2).
  kRandom,      // Each warp a seeded random XOR mask, uniform in [0, W).
  kWid,         // XOR with the warp id modulo W [Brunie et al.].
  kRevWid,      // XOR with the bit-reversed warp id modulo W [Brunie et al.].
  kFlipOdd,     // Odd warps reversed end to end (XOR W-1), even warps as-is.
  kRotateOdd1,  // Odd warps rotated by one lane (l -> (l+1) mod W), even warps as-is. Not an XOR.
};

inline constexpr NamedPermutation kAllNamedPermutations[] = {
    NamedPermutation::kIdentity, NamedPermutation::kBalanced, NamedPermutation::kOddEven,
    NamedPermutation::kXorHalf,  NamedPermutation::kRandom,   NamedPermutation::kWid,
    NamedPermutation::kRevWid,   NamedPermutation::kFlipOdd,  NamedPermutation::kRotateOdd1,
};

// "identity", "balanced", "odd_even", "xor_half", "random", "wid", "rev_wid", "flip_odd", "rotate_odd_1".
std::optional<NamedPermutation> parse_permutation(std::string_view name);
std::string_view permutation_name(NamedPermutation permutation);
// True when the permutation is an XOR per warp, so the permutation table and its RTL twin can run it.
bool is_xor_permutation(NamedPermutation permutation);

// One permutation at one SIMD width. Warp ids are CTA-relative (warp w holds CTA threads [w*W, (w+1)*W)).
class LanePermutationMap {
 public:
  // Random masks are drawn for this many warp ids: enough for the largest CTA (1024 threads) at any width.
  static constexpr uint32_t kMaxWarps = 1024;

  // `width` is a power of two in [2, 64] (narrower than the hardware's 8 so the paper's W = 4 figures run);
  // `seed` only matters for kRandom.
  LanePermutationMap(NamedPermutation permutation, uint32_t width, uint64_t seed = 0);

  NamedPermutation permutation() const { return permutation_; }
  uint32_t width() const { return width_; }
  bool is_xor() const { return is_xor_permutation(permutation_); }

  // Physical lane of logical lane `lane` of warp `warp`.
  uint32_t home_lane(uint32_t warp, uint32_t lane) const;
  // Inverse of home_lane: the logical lane whose home is physical lane `home`.
  uint32_t logical_lane(uint32_t warp, uint32_t home) const;
  // XOR mask of `warp`; throws std::logic_error for a permutation that is not an XOR.
  uint32_t xor_mask(uint32_t warp) const;
  // Masks of warps 0..num_warps-1 (what a permutation table of that many entries holds).
  std::vector<uint32_t> xor_table(uint32_t num_warps) const;
  // Loads every entry of `table` with xor_mask(entry) and switches it to PermutationMode::kTable. Throws
  // std::invalid_argument when the widths differ and std::logic_error for a permutation that is not an XOR.
  void load_into(PermutationTable& table) const;

 private:
  void check_warp(uint32_t warp) const;

  NamedPermutation permutation_;
  uint32_t width_;
  std::vector<uint32_t> random_masks_;  // kRandom only: mask per warp id.
};

}  // namespace simtlm::hw
