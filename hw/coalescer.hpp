// The load/store unit's baseline coalescer: the addresses of a warp's active lanes become one request per
// distinct aligned segment, and shared-memory accesses are serialised by their worst bank conflict.
#pragma once

#include <cstdint>
#include <vector>

namespace simtlm::hw {

struct CoalescedRequest {
  uint64_t base = 0;     // segment-aligned address
  uint32_t bytes = 0;    // segment size
  uint32_t lanes = 0;    // lanes served by this request
  uint32_t sectors = 0;  // 32-byte sectors of the segment the lanes touch (bit i = bytes [32i, 32i + 32))
};

class Coalescer {
 public:
  explicit Coalescer(uint32_t segment_bytes);  // 32, 64 or 128
  // Appends one request per distinct segment touched by the active lanes, ordered by the lowest lane that
  // touches it (the order the hardware walks the lanes). An access wider than a segment is split.
  void coalesce(const uint64_t* addr, uint32_t bytes_per_lane, uint32_t active,
                std::vector<CoalescedRequest>& out) const;
  uint32_t segment_bytes() const { return segment_; }

 private:
  uint32_t segment_;
};

// Cycles a shared-memory access needs: the largest number of distinct 4-byte words that map to one bank
// (lanes reading the same word are served by one broadcast). 1 = conflict-free, 0 = no active lane.
uint32_t shared_bank_conflict_degree(const uint64_t* addr, uint32_t bytes_per_lane, uint32_t active,
                                     uint32_t banks);

}  // namespace simtlm::hw
