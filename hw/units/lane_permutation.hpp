// SIMD lane permutation (SLP): each warp id owns an XOR mask that moves logical lane l to physical
// ("home") lane l ^ mask. Model of rtl/slp_permutation_unit.v.
#pragma once

#include <cstdint>
#include <vector>

namespace simtlm::hw {

enum class PermutationMode : uint8_t {
  kIdentity = 0,  // SLP disabled: home lane == logical lane.
  kTable = 1,     // Masks come from the loadable per-warp-id table.
  kBalanced = 2,  // Fixed function: even warp w uses w/2, odd warp the inverse of its even partner.
};

// Narrow interface so a Verilated twin can stand in for the C++ model.
// Methods are not const because a hardware twin evaluates (changes state) to answer.
class LanePermutation {
 public:
  virtual ~LanePermutation() = default;
  virtual void set_mode(PermutationMode mode) = 0;
  // Writes the table entry of `warp`; `xor_mask` must be below the SIMD width.
  virtual void load(uint32_t warp, uint32_t xor_mask) = 0;
  // The mask the current mode applies to `warp`.
  virtual uint32_t xor_mask(uint32_t warp) = 0;
  virtual uint32_t home_lane(uint32_t warp, uint32_t lane) = 0;
  // Bit p of the result is bit (p ^ mask) of `logical_mask`: logical lane l lands on physical lane l ^ mask.
  // Bits at or above the SIMD width are ignored.
  virtual uint64_t permute_mask(uint32_t warp, uint64_t logical_mask) = 0;
};

// Balanced permutation mask (SLP paper, Equation 2) within log2(width) bits; warp ids wrap modulo 2*width.
uint32_t balanced_xor_mask(uint32_t warp, uint32_t width);

class PermutationTable final : public LanePermutation {
 public:
  // `width` is a power of two in [8, 64]; `num_warp_ids` a power of two (table entries, reset to 0).
  explicit PermutationTable(uint32_t width, uint32_t num_warp_ids = 64);

  void set_mode(PermutationMode mode) override { mode_ = mode; }
  void load(uint32_t warp, uint32_t xor_mask) override;
  uint32_t xor_mask(uint32_t warp) override;
  uint32_t home_lane(uint32_t warp, uint32_t lane) override;
  uint64_t permute_mask(uint32_t warp, uint64_t logical_mask) override;

  uint32_t width() const { return width_; }
  uint32_t num_warp_ids() const { return static_cast<uint32_t>(table_.size()); }

 private:
  void check_warp(uint32_t warp) const;

  uint32_t width_;
  PermutationMode mode_ = PermutationMode::kIdentity;
  std::vector<uint32_t> table_;
};

}  // namespace simtlm::hw
