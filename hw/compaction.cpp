#include "hw/compaction.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>

#include "hw/units/priority_encoder_compactor.hpp"
#include "hw/units/width.hpp"

namespace simtlm::hw {
namespace {

void check_width(uint32_t width) {
  if (width < 2 || width > 64 || !std::has_single_bit(width)) {
    throw std::invalid_argument("SIMD width must be a power of two in [2, 64], got " + std::to_string(width));
  }
}

// Per CTA warp: logical lane of each physical lane (the inverse of home_lane), checked to be a bijection.
std::vector<std::vector<uint32_t>> logical_of_home(size_t num_warps, uint32_t width,
                                                   const HomeLaneFn& home_lane) {
  std::vector<std::vector<uint32_t>> logical(num_warps, std::vector<uint32_t>(width, width));
  for (uint32_t warp = 0; warp < num_warps; ++warp) {
    for (uint32_t lane = 0; lane < width; ++lane) {
      const uint32_t home = home_lane(warp, lane);
      if (home >= width || logical[warp][home] != width) {
        throw std::invalid_argument("home-lane mapping of warp " + std::to_string(warp) +
                                    " is not a permutation of the lanes");
      }
      logical[warp][home] = lane;
    }
  }
  return logical;
}

FormedWarp empty_warp(uint32_t width) {
  return FormedWarp{0, std::vector<int32_t>(width, kIdleLane)};
}

int32_t thread_index(uint32_t warp, uint32_t logical_lane, uint32_t width) {
  return static_cast<int32_t>(warp * width + logical_lane);
}

}  // namespace

std::vector<FormedWarp> place_path(std::span<const uint64_t> warp_masks, uint32_t width,
                                   const HomeLaneFn& home_lane) {
  check_width(width);
  std::vector<FormedWarp> placed;
  placed.reserve(warp_masks.size());
  for (uint32_t warp = 0; warp < warp_masks.size(); ++warp) {
    FormedWarp formed = empty_warp(width);
    for (uint64_t rest = warp_masks[warp] & lane_mask_of(width); rest != 0; rest &= rest - 1) {
      const auto lane = static_cast<uint32_t>(std::countr_zero(rest));
      const uint32_t home = home_lane(warp, lane);
      if (home >= width) throw std::invalid_argument("home lane outside the warp");
      formed.lane_mask |= uint64_t{1} << home;
      formed.lane[home] = thread_index(warp, lane, width);
    }
    placed.push_back(std::move(formed));
  }
  return placed;
}

PathCompaction compact_path(std::span<const uint64_t> warp_masks, uint32_t width, const HomeLaneFn& home_lane,
                            WarpCompaction* unit) {
  check_width(width);
  const auto logical = logical_of_home(warp_masks.size(), width, home_lane);

  PathCompaction result;
  std::vector<uint64_t> physical_masks;
  physical_masks.reserve(warp_masks.size());
  for (const FormedWarp& placed : place_path(warp_masks, width, home_lane)) {
    physical_masks.push_back(placed.lane_mask);
    const auto active = static_cast<uint32_t>(std::popcount(placed.lane_mask));
    result.active_threads += active;
    if (active != 0) ++result.no_tbc_warps;
  }
  result.ideal_warps = (result.active_threads + width - 1) / width;

  // The compactor's lanes are independent, so a narrower warp (the paper's W = 4 examples) runs on the
  // smallest hardware width with the upper lanes never pending.
  PriorityEncoderCompactor model(std::max<uint32_t>(width, 8),
                                 std::max<uint32_t>(1, static_cast<uint32_t>(warp_masks.size())));
  WarpCompaction& compactor = unit ? *unit : model;
  for (const CompactedWarp& compacted : compact_all(compactor, physical_masks)) {
    FormedWarp formed = empty_warp(width);
    formed.lane_mask = compacted.lane_mask;
    for (uint64_t rest = compacted.lane_mask; rest != 0; rest &= rest - 1) {
      const auto home = static_cast<uint32_t>(std::countr_zero(rest));
      const uint32_t warp = compacted.source_warp[home];
      formed.lane[home] = thread_index(warp, logical[warp][home], width);
    }
    result.warps.push_back(std::move(formed));
  }
  return result;
}

PathCompaction compact_path(std::span<const uint64_t> warp_masks, const LanePermutationMap& permutation) {
  return compact_path(warp_masks, permutation.width(), [&permutation](uint32_t warp, uint32_t lane) {
    return permutation.home_lane(warp, lane);
  });
}

}  // namespace simtlm::hw
