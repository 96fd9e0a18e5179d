// Table I of the divergence-cost paper: with pattern n, lanes 32-n..31 of the warp run
// 31, 30, ..., 32-n iterations and the other lanes 32.
#pragma once

#include <cstdint>

namespace simtlm::workloads {

inline int table1_trip_count(uint32_t lane, int n) {
  const int first_divergent = 32 - n;
  const int l = static_cast<int>(lane);
  return l < first_divergent ? 32 : 32 - (l - first_divergent + 1);
}

}  // namespace simtlm::workloads
