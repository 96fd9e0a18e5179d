// The load/store unit's baseline coalescer: the addresses of a warp's active lanes become one request per
// distinct aligned segment, and shared-memory accesses are serialised by their worst bank conflict.
#pragma once

#include <cstdint>
#include <vector>

#include "models/mem/atomic_target.hpp"

namespace simtlm::hw {

struct CoalescedRequest {
  uint64_t base = 0;     // aligned to the request size
  uint32_t bytes = 0;    // request size: the segment, or the cache line when the line is smaller
  uint32_t lanes = 0;    // lanes served by this request
  uint32_t sectors = 0;  // 32-byte sectors of the request the lanes touch (bit i = bytes [32i, 32i + 32))
};

class Coalescer {
 public:
  // segment_bytes: 32, 64 or 128. line_bytes: the line of the first cache the requests reach (a power of two
  // of at least 32); a segment larger than a line becomes one request per line it touches, because a cache
  // serves one line per request and would otherwise drop the bytes past the first line.
  explicit Coalescer(uint32_t segment_bytes, uint32_t line_bytes = 1024);
  // Appends one request per distinct segment (or line piece of one) touched by the active lanes, ordered by
  // the lowest lane that touches it (the order the hardware walks the lanes). An access wider than a request
  // is split.
  void coalesce(const uint64_t* addr, uint32_t bytes_per_lane, uint32_t active,
                std::vector<CoalescedRequest>& out) const;
  uint32_t segment_bytes() const { return segment_; }
  uint32_t request_bytes() const { return request_; }

 private:
  uint32_t segment_, request_;
};

// The words an atomic request's lanes update, in lane order, with the number of lanes on each: every lane is
// one read-modify-write at the L2's atomic unit, and lanes on one word are serialised there, not combined.
void atomic_targets(const uint64_t* addr, uint32_t lanes, std::vector<mem::AtomicTarget>& out);

// Cycles a shared-memory access needs: the largest number of distinct 4-byte words that map to one bank
// (lanes reading the same word are served by one broadcast). 1 = conflict-free, 0 = no active lane.
uint32_t shared_bank_conflict_degree(const uint64_t* addr, uint32_t bytes_per_lane, uint32_t active,
                                     uint32_t banks);

}  // namespace simtlm::hw
