// The load/store unit's coalescer: the addresses of a warp's active lanes become one request per distinct
// aligned segment (or, under the compute capability 1.2/1.3 rule, per half-warp transaction), and
// shared-memory accesses are serialised by their worst bank conflict.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "models/mem/atomic_target.hpp"

namespace simtlm::hw {

struct CoalescedRequest {
  uint64_t base = 0;     // aligned to the request size
  uint32_t bytes = 0;    // request size: the segment, or the cache line when the line is smaller
  uint32_t lanes = 0;    // lanes served by this request
  uint32_t sectors = 0;  // 32-byte sectors of the request the lanes touch (bit i = bytes [32i, 32i + 32))
};

// lsu.coalescing: how a warp's addresses become requests.
enum class CoalescingRule {
  // The whole warp at once: one request per aligned segment_bytes segment it touches, carrying only the
  // 32-byte sectors the lanes touch (Fermi and later).
  sectors,
  // Compute capability 1.2 and 1.3 (GT200): each half-warp on its own; per transaction, the segment of the
  // lowest-numbered pending lane (32 B for 1-byte words, 64 B for 2-byte, 128 B for wider), shrunk to the
  // lower or upper half while the served lanes fit in it, and moved whole.
  compute13,
};
std::optional<CoalescingRule> parse_coalescing_rule(std::string_view name);

class Coalescer {
 public:
  // segment_bytes: 32, 64 or 128 (the sectors rule's segment). line_bytes: the line of the first cache the
  // requests reach (a power of two of at least 32); under the sectors rule a segment larger than a line
  // becomes one request per line it touches, because a cache serves one line per request and would otherwise
  // drop the bytes past the first line. compute13 transactions stay whole (the hardware's count); the
  // load/store unit splits one that crosses a line.
  explicit Coalescer(uint32_t segment_bytes, uint32_t line_bytes = 1024,
                     CoalescingRule rule = CoalescingRule::sectors);
  // Appends the requests of the active lanes, ordered by the lowest lane each serves (the order the hardware
  // walks the lanes). Sectors rule: one per distinct segment (or line piece of one); an access wider than a
  // request is split. compute13: the transactions of lanes 0-15, then those of lanes 16-31; `sectors` marks
  // every sector of the transaction, as all of it is moved.
  void coalesce(const uint64_t* addr, uint32_t bytes_per_lane, uint32_t active,
                std::vector<CoalescedRequest>& out) const;
  uint32_t segment_bytes() const { return segment_; }
  uint32_t request_bytes() const { return request_; }
  CoalescingRule rule() const { return rule_; }

 private:
  void coalesce_by_sectors(const uint64_t* addr, uint32_t bytes_per_lane, uint32_t active,
                           std::vector<CoalescedRequest>& out) const;
  uint32_t segment_, request_;
  CoalescingRule rule_;
};

// The compute capability 1.2/1.3 transactions of one half-warp's active lanes (`active` within one
// half-warp's 16 bits), appended to `out`.
void coalesce_half_warp_compute13(const uint64_t* addr, uint32_t bytes_per_lane, uint32_t active,
                                  std::vector<CoalescedRequest>& out);

// The words an atomic request's lanes update, in lane order, with the number of lanes on each: every lane is
// one read-modify-write at the L2's atomic unit, and lanes on one word are serialised there, not combined.
void atomic_targets(const uint64_t* addr, uint32_t lanes, std::vector<mem::AtomicTarget>& out);

// Cycles a shared-memory access needs: the largest number of distinct 4-byte words that map to one bank
// (lanes reading the same word are served by one broadcast). 1 = conflict-free, 0 = no active lane.
uint32_t shared_bank_conflict_degree(const uint64_t* addr, uint32_t bytes_per_lane, uint32_t active,
                                     uint32_t banks);

}  // namespace simtlm::hw
