// Deterministic stimulus for the equivalence tests, and printers so a mismatch shows both answers.
#pragma once

#include <cstdint>
#include <ostream>

#include "hw/units/majority_unit.hpp"
#include "hw/units/popular_block_selector.hpp"
#include "hw/units/priority_encoder_compactor.hpp"
#include "hw/units/width.hpp"
#include "models/launch/buffers.hpp"

namespace simtlm::rtl_test {

// Stimulus from the project's one splitmix64 (header-only, so the RTL tests do not link the launch library).
class VectorSource {
 public:
  explicit VectorSource(uint64_t seed) : rng_(seed) {}
  uint64_t bits() { return rng_.next(); }
  // Modulo bias does not matter for stimulus.
  uint64_t below(uint64_t range) { return bits() % range; }
  // A `width`-lane mask whose density is itself random, so empty, sparse, half, dense and full masks all
  // occur.
  uint64_t mask(uint32_t width) {
    uint64_t value = 0;
    switch (below(8)) {
      case 0:
        value = bits() & bits() & bits();
        break;
      case 1:
        value = bits() & bits();
        break;
      case 2:
        value = bits() | bits();
        break;
      case 3:
        value = bits() | bits() | bits();
        break;
      case 4:
        value = below(2) ? 0 : ~uint64_t{0};
        break;
      case 5:
        value = (below(2) ? 0 : ~uint64_t{0}) ^ (uint64_t{1} << below(width));
        break;
      default:
        value = bits();
        break;
    }
    return value & hw::lane_mask_of(width);
  }

 private:
  launch::SplitMix64 rng_;
};

}  // namespace simtlm::rtl_test

namespace simtlm::hw {

inline void PrintTo(const BranchVote& v, std::ostream* os) {
  *os << "{herd_taken=" << v.herd_taken << " all_taken=" << v.all_taken << " none_taken=" << v.none_taken
      << " uniform=" << v.uniform << "}";
}

inline void PrintTo(const CompactedWarp& w, std::ostream* os) {
  *os << "{lane_mask=0x" << std::hex << w.lane_mask << std::dec << " source_warp=[";
  for (int lane = 0; lane < 64; ++lane) {
    if ((w.lane_mask >> lane) & 1) *os << " " << lane << ":" << int(w.source_warp[lane]);
  }
  *os << " ]}";
}

inline void PrintTo(const HerdedLoad& h, std::ostream* os) {
  *os << "{block=0x" << std::hex << h.block << std::dec << " count=" << h.count << " address=[" << std::hex;
  for (uint64_t a : h.address) *os << " " << a;
  *os << std::dec << " ]}";
}

}  // namespace simtlm::hw
