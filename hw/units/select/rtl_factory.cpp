// The Verilated twins behind the unit interfaces, one instantiation per SIMD width cmake/rtl.cmake builds.
// The only file of the simulator that includes the Verilated classes.
#include <string>

#include "Vmajority_unit_w16.h"
#include "Vmajority_unit_w16_tie_taken.h"
#include "Vmajority_unit_w32.h"
#include "Vmajority_unit_w32_tie_taken.h"
#include "Vmajority_unit_w64.h"
#include "Vmajority_unit_w64_tie_taken.h"
#include "Vmajority_unit_w8.h"
#include "Vmajority_unit_w8_tie_taken.h"
#include "Vpopular_block_selector_w16.h"
#include "Vpopular_block_selector_w32.h"
#include "Vpopular_block_selector_w64.h"
#include "Vpopular_block_selector_w8.h"
#include "Vpriority_encoder_compactor_w16.h"
#include "Vpriority_encoder_compactor_w32.h"
#include "Vpriority_encoder_compactor_w64.h"
#include "Vpriority_encoder_compactor_w8.h"
#include "Vslp_permutation_unit_w16.h"
#include "Vslp_permutation_unit_w32.h"
#include "Vslp_permutation_unit_w64.h"
#include "Vslp_permutation_unit_w8.h"
#include "hw/units/select/rtl_twins.hpp"
#include "hw/units/select/unit_set.hpp"

namespace simtlm::hw {
namespace {

// The permutation RTL is synthesized with WARP_ID_BITS = 6.
constexpr uint32_t kRtlWarpIds = 64;
constexpr uint32_t kRtlAddressBits = 64;
// The selector twins are verilated with ROUNDS = 1 (all lanes are candidates in one cycle: latency 2).
constexpr uint32_t kRtlSelectorRounds = 1;

[[noreturn]] void no_twin(const char* unit, uint32_t simd_width) {
  throw std::invalid_argument(std::string("no Verilated ") + unit + " twin at SIMD width " +
                              std::to_string(simd_width) + " (built: 8, 16, 32, 64)");
}

}  // namespace

std::unique_ptr<LanePermutation> make_rtl_permutation(uint32_t simd_width, uint32_t warp_ids) {
  if (warp_ids == 0 || warp_ids > kRtlWarpIds || (warp_ids & (warp_ids - 1)) != 0) {
    throw std::invalid_argument("the RTL permutation table has " + std::to_string(kRtlWarpIds) +
                                " entries: warp ids must be a power of two up to that, not " +
                                std::to_string(warp_ids));
  }
  switch (simd_width) {
    case 8:
      return std::make_unique<rtl::RtlLanePermutation<Vslp_permutation_unit_w8>>(simd_width, warp_ids);
    case 16:
      return std::make_unique<rtl::RtlLanePermutation<Vslp_permutation_unit_w16>>(simd_width, warp_ids);
    case 32:
      return std::make_unique<rtl::RtlLanePermutation<Vslp_permutation_unit_w32>>(simd_width, warp_ids);
    case 64:
      return std::make_unique<rtl::RtlLanePermutation<Vslp_permutation_unit_w64>>(simd_width, warp_ids);
  }
  no_twin("permutation", simd_width);
}

std::unique_ptr<BranchMajority> make_rtl_majority(uint32_t simd_width, MajorityTie tie) {
  const bool tie_taken = tie == MajorityTie::kTaken;
  switch (simd_width) {
    case 8:
      if (tie_taken) return std::make_unique<rtl::RtlMajority<Vmajority_unit_w8_tie_taken>>(simd_width);
      return std::make_unique<rtl::RtlMajority<Vmajority_unit_w8>>(simd_width);
    case 16:
      if (tie_taken) return std::make_unique<rtl::RtlMajority<Vmajority_unit_w16_tie_taken>>(simd_width);
      return std::make_unique<rtl::RtlMajority<Vmajority_unit_w16>>(simd_width);
    case 32:
      if (tie_taken) return std::make_unique<rtl::RtlMajority<Vmajority_unit_w32_tie_taken>>(simd_width);
      return std::make_unique<rtl::RtlMajority<Vmajority_unit_w32>>(simd_width);
    case 64:
      if (tie_taken) return std::make_unique<rtl::RtlMajority<Vmajority_unit_w64_tie_taken>>(simd_width);
      return std::make_unique<rtl::RtlMajority<Vmajority_unit_w64>>(simd_width);
  }
  no_twin("majority", simd_width);
}

std::unique_ptr<WarpCompaction> make_rtl_compactor(uint32_t simd_width, uint32_t max_warps) {
  switch (simd_width) {
    case 8:
      return std::make_unique<rtl::RtlCompactor<Vpriority_encoder_compactor_w8>>(simd_width, max_warps);
    case 16:
      return std::make_unique<rtl::RtlCompactor<Vpriority_encoder_compactor_w16>>(simd_width, max_warps);
    case 32:
      return std::make_unique<rtl::RtlCompactor<Vpriority_encoder_compactor_w32>>(simd_width, max_warps);
    case 64:
      return std::make_unique<rtl::RtlCompactor<Vpriority_encoder_compactor_w64>>(simd_width, max_warps);
  }
  no_twin("compactor", simd_width);
}

std::unique_ptr<BlockSelection> make_rtl_popular_block(uint32_t simd_width) {
  switch (simd_width) {
    case 8:
      return std::make_unique<rtl::RtlBlockSelector<Vpopular_block_selector_w8>>(simd_width, kRtlAddressBits,
                                                                                 kRtlSelectorRounds);
    case 16:
      return std::make_unique<rtl::RtlBlockSelector<Vpopular_block_selector_w16>>(simd_width, kRtlAddressBits,
                                                                                  kRtlSelectorRounds);
    case 32:
      return std::make_unique<rtl::RtlBlockSelector<Vpopular_block_selector_w32>>(simd_width, kRtlAddressBits,
                                                                                  kRtlSelectorRounds);
    case 64:
      return std::make_unique<rtl::RtlBlockSelector<Vpopular_block_selector_w64>>(simd_width, kRtlAddressBits,
                                                                                  kRtlSelectorRounds);
  }
  no_twin("popular_block", simd_width);
}

}  // namespace simtlm::hw
