// Thread block compaction's priority-encoder compactor (SLP paper, Figure 2). Model of
// rtl/priority_encoder_compactor.v. A thread may only run in its home lane, so each lane independently picks
// its lowest-numbered pending warp; one compacted warp is emitted per step until nothing is pending.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace simtlm::hw {

struct CompactedWarp {
  uint64_t lane_mask = 0;                 // Lanes that run a thread in this compacted warp.
  std::array<uint8_t, 64> source_warp{};  // Per lane: warp index of its thread; 0 where the lane is idle.
  bool operator==(const CompactedWarp&) const = default;
};

class WarpCompaction {
 public:
  virtual ~WarpCompaction() = default;
  // Replaces the pending set: warp_masks[w] bit l = thread (warp w, lane l) is pending.
  virtual void load(std::span<const uint64_t> warp_masks) = 0;
  virtual bool done() = 0;
  // The next compacted warp (lowest pending warp per lane); clears its threads. Empty warp when done().
  virtual CompactedWarp next() = 0;
};

class PriorityEncoderCompactor final : public WarpCompaction {
 public:
  // `max_warps` warps per CTA (the RTL is synthesized with 16).
  explicit PriorityEncoderCompactor(uint32_t width, uint32_t max_warps = 16);
  void load(std::span<const uint64_t> warp_masks) override;
  bool done() override;
  CompactedWarp next() override;

 private:
  uint32_t width_;
  uint32_t max_warps_;
  std::vector<uint64_t> pending_;
};

// Drains `compactor` after loading `warp_masks`: the whole compacted schedule.
std::vector<CompactedWarp> compact_all(WarpCompaction& compactor, std::span<const uint64_t> warp_masks);

}  // namespace simtlm::hw
