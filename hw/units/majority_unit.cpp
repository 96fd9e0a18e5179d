#include "hw/units/majority_unit.hpp"

#include <bit>

#include "hw/units/width.hpp"

namespace simtlm::hw {

MajorityUnit::MajorityUnit(uint32_t width, MajorityTie tie) : lanes_(lane_mask_of(width)), tie_(tie) {
  check_simd_width(width);
}

BranchVote MajorityUnit::vote(uint64_t taken, uint64_t active) {
  BranchVote result;
  active &= lanes_;
  if (active == 0) return result;
  const uint64_t taken_active = taken & active;
  const int yes = std::popcount(taken_active);
  const int voters = std::popcount(active);
  result.herd_taken = tie_ == MajorityTie::kTaken ? 2 * yes >= voters : 2 * yes > voters;
  result.all_taken = taken_active == active;
  result.none_taken = taken_active == 0;
  result.uniform = result.all_taken || result.none_taken;
  return result;
}

}  // namespace simtlm::hw
