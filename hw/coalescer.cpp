#include "hw/coalescer.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>

namespace simtlm::hw {

namespace {
constexpr uint32_t kMaxBanks = 64;
constexpr uint32_t kHalfWarpLanes = 0xffffu;
constexpr uint32_t kSmallestTransaction = 32;

// Compute capability 1.2/1.3: the segment a transaction starts from, by word size.
uint32_t compute13_segment_bytes(uint32_t bytes_per_lane) {
  return bytes_per_lane <= 1 ? 32 : bytes_per_lane == 2 ? 64 : 128;
}

uint32_t every_sector(uint32_t bytes) {
  return (1u << (bytes / 32)) - 1;
}
}  // namespace

std::optional<CoalescingRule> parse_coalescing_rule(std::string_view name) {
  if (name == "sectors") return CoalescingRule::sectors;
  if (name == "compute13") return CoalescingRule::compute13;
  return std::nullopt;
}

Coalescer::Coalescer(uint32_t segment_bytes, uint32_t line_bytes, CoalescingRule rule)
    : segment_(segment_bytes), request_(std::min(segment_bytes, line_bytes)), rule_(rule) {
  if (segment_bytes != 32 && segment_bytes != 64 && segment_bytes != 128) {
    throw std::invalid_argument("coalescer segment must be 32, 64 or 128 bytes");
  }
  if (line_bytes < 32 || !std::has_single_bit(line_bytes)) {
    throw std::invalid_argument("coalescer line size must be a power of two of at least 32 bytes");
  }
}

void Coalescer::coalesce(const uint64_t* addr, uint32_t bytes_per_lane, uint32_t active,
                         std::vector<CoalescedRequest>& out) const {
  if (rule_ == CoalescingRule::sectors) {
    coalesce_by_sectors(addr, bytes_per_lane, active, out);
    return;
  }
  coalesce_half_warp_compute13(addr, bytes_per_lane, active & kHalfWarpLanes, out);
  coalesce_half_warp_compute13(addr, bytes_per_lane, active & ~kHalfWarpLanes, out);
}

void coalesce_half_warp_compute13(const uint64_t* addr, uint32_t bytes_per_lane, uint32_t active,
                                  std::vector<CoalescedRequest>& out) {
  const uint32_t width = std::max<uint32_t>(bytes_per_lane, 1);
  const uint32_t segment = compute13_segment_bytes(bytes_per_lane);
  for (uint32_t pending = active; pending;) {
    const uint32_t lowest = uint32_t(std::countr_zero(pending));
    const uint64_t start = addr[lowest], segment_base = start & ~uint64_t(segment - 1);
    if (start + width > segment_base + segment) {
      // A word crossing its segment (only the timing model's interleaved local addresses do: the functional
      // model rejects misaligned accesses) takes every segment it touches, for itself.
      for (uint64_t s = segment_base; s < start + width; s += segment)
        out.push_back({s, segment, 1u << lowest, every_sector(segment)});
      pending &= pending - 1;
      continue;
    }
    uint32_t served = 0;
    uint64_t lo = start, hi = start + width;
    for (uint32_t m = pending; m; m &= m - 1) {
      const uint32_t lane = uint32_t(std::countr_zero(m));
      if (addr[lane] < segment_base || addr[lane] + width > segment_base + segment) continue;
      served |= 1u << lane;
      lo = std::min(lo, addr[lane]);
      hi = std::max(hi, addr[lane] + width);
    }
    pending &= ~served;
    uint64_t base = segment_base;
    uint32_t size = segment;
    while (size > kSmallestTransaction) {
      const uint32_t half = size / 2;
      if (hi <= base + half) {
        size = half;
      } else if (lo >= base + half) {
        base += half;
        size = half;
      } else {
        break;
      }
    }
    out.push_back({base, size, served, every_sector(size)});
  }
}

void Coalescer::coalesce_by_sectors(const uint64_t* addr, uint32_t bytes_per_lane, uint32_t active,
                                    std::vector<CoalescedRequest>& out) const {
  const size_t first = out.size();
  // The pieces of a segment split by line are the aligned blocks of the smaller size: walking those
  // directly gives each piece its own lane order.
  const uint64_t mask = ~uint64_t(request_ - 1);
  for (uint32_t pending = active; pending; pending &= pending - 1) {
    const uint32_t lane = uint32_t(std::countr_zero(pending));
    const uint64_t begin = addr[lane], end = begin + std::max<uint32_t>(bytes_per_lane, 1);
    for (uint64_t seg = begin & mask; seg < end; seg += request_) {
      auto it = std::find_if(out.begin() + first, out.end(), [&](const auto& r) { return r.base == seg; });
      if (it == out.end()) {
        out.push_back({seg, request_, 0, 0});
        it = out.end() - 1;
      }
      it->lanes |= 1u << lane;
      const uint64_t lo = std::max(begin, seg) - seg, hi = std::min(end, seg + request_) - seg;
      for (uint64_t s = lo / 32; s * 32 < hi; ++s) it->sectors |= 1u << s;
    }
  }
}

void atomic_targets(const uint64_t* addr, uint32_t lanes, std::vector<mem::AtomicTarget>& out) {
  out.clear();
  for (uint32_t m = lanes; m; m &= m - 1) {
    const uint64_t a = addr[std::countr_zero(m)];
    auto it =
        std::find_if(out.begin(), out.end(), [a](const mem::AtomicTarget& t) { return t.address == a; });
    if (it == out.end()) {
      out.push_back({a, 1});
    } else {
      ++it->operations;
    }
  }
}

uint32_t shared_bank_conflict_degree(const uint64_t* addr, uint32_t bytes_per_lane, uint32_t active,
                                     uint32_t banks) {
  if (banks == 0 || banks > kMaxBanks) throw std::invalid_argument("shared memory banks must be 1..64");
  // At most 32 lanes x 4 words (v4.b32): fixed arrays keep this off the heap on the issue path.
  uint64_t seen[32 * 4];
  uint32_t nseen = 0;
  uint8_t per_bank[kMaxBanks] = {};
  uint32_t degree = 0;
  const uint32_t nwords = std::min<uint32_t>(4, std::max<uint32_t>(1, (bytes_per_lane + 3) / 4));
  for (uint32_t pending = active; pending; pending &= pending - 1) {
    const uint32_t lane = uint32_t(std::countr_zero(pending));
    for (uint32_t w = 0; w < nwords; ++w) {
      const uint64_t word = addr[lane] / 4 + w;
      if (std::find(seen, seen + nseen, word) != seen + nseen) continue;
      seen[nseen++] = word;
      degree = std::max<uint32_t>(degree, ++per_bank[word % banks]);
    }
  }
  return degree;
}

}  // namespace simtlm::hw
