// Thread block compaction of one CTA-wide path (SLP paper, Sections 2.3 and 3.3): which warps the
// priority-encoder compactor (Figure 2) forms from the threads of a CTA that take one side of a divergent
// branch, when each thread may run only in its home lane, and how that compares with no compaction and with
// ideal compaction (Equation 1). The timing model calls this at every CTA-wide divergent branch.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "hw/units/permutations.hpp"
#include "hw/units/priority_encoder_compactor.hpp"

namespace simtlm::hw {

inline constexpr int32_t kIdleLane = -1;

// One warp as issued: which CTA thread runs in each physical lane.
struct FormedWarp {
  uint64_t lane_mask = 0;     // Physical lanes that run a thread.
  std::vector<int32_t> lane;  // Per physical lane: CTA thread index (warp * W + logical lane), or kIdleLane.
  bool operator==(const FormedWarp&) const = default;
};

struct PathCompaction {
  std::vector<FormedWarp> warps;  // The compacted warps in issue order; warps.size() is NW_TBC.
  uint32_t active_threads = 0;    // Threads of the CTA on the path.
  uint32_t no_tbc_warps = 0;      // NW_NoTBC: CTA warps with any thread on the path.
  uint32_t ideal_warps = 0;       // NW_ideal = ceil(active_threads / W), Equation 1.

  uint32_t tbc_warps() const { return static_cast<uint32_t>(warps.size()); }
  // Compaction saved at least one warp (the paper's "compactable as-is" once a permutation is applied).
  bool compacted() const { return tbc_warps() < no_tbc_warps; }
  // Some compaction could save a warp if threads could change lanes.
  bool potentially_compactable() const { return ideal_warps < no_tbc_warps; }
};

// Physical home lane of logical lane `lane` of CTA warp `warp`; a bijection on [0, W) for each warp.
using HomeLaneFn = std::function<uint32_t(uint32_t warp, uint32_t lane)>;

// Each CTA warp's threads on the path, placed in their home lanes (what runs without compaction). One entry
// per element of `warp_masks`, including warps with no thread on the path (empty lane_mask). `warp_masks[w]`
// bit l: logical lane l of CTA warp w is on the path; bits at or above `width` are ignored. `width` is a
// power of two in [2, 64]. Throws std::invalid_argument if `home_lane` is not a bijection.
std::vector<FormedWarp> place_path(std::span<const uint64_t> warp_masks, uint32_t width,
                                   const HomeLaneFn& home_lane);

// Compacts the path the way PriorityEncoderCompactor does: each physical lane runs its pending threads in
// increasing CTA warp order, one per formed warp, so NW_TBC is the largest number of path threads sharing a
// home lane. At most 256 CTA warps (the compactor's limit).
// `compactor` (the C++ model or its RTL twin, sized for the CTA) replaces the built-in C++ model when given.
PathCompaction compact_path(std::span<const uint64_t> warp_masks, uint32_t width, const HomeLaneFn& home_lane,
                            WarpCompaction* compactor = nullptr);
PathCompaction compact_path(std::span<const uint64_t> warp_masks, const LanePermutationMap& permutation);

}  // namespace simtlm::hw
