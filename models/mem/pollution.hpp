#pragma once
// Which lines of a cache the cache-pollution experiments take away from the running workload (Robust SIMD,
// Section VII-B): a fixed count drawn uniformly without replacement, reproducible from a seed. Plain C++,
// no SystemC, so the choice can be tested on its own; Cache::pollute applies it.
#include <cmath>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <utility>
#include <vector>

#include "common/prng.hpp"

namespace simtlm::mem {

// round(fraction * lines): how many of `lines` lines a pollution fraction takes.
inline uint32_t polluted_line_count(uint32_t lines, double fraction) {
  if (!(fraction >= 0.0 && fraction <= 1.0))
    throw std::invalid_argument("cache pollution: the fraction must lie in [0, 1]");
  return static_cast<uint32_t>(std::llround(fraction * lines));
}

// The seed of one cache's lines: the run's seed and the cache's index (the SM of an L1) both fully mixed,
// so neighbouring SMs or seeds do not draw related sets.
inline uint64_t pollution_seed_for(uint64_t run_seed, uint32_t cache_index) {
  common::SplitMix64 by_seed(run_seed);
  common::SplitMix64 by_cache(by_seed.next() ^ (uint64_t{cache_index} * 0xd1b54a32d192ed03ull));
  return by_cache.next();
}

// Indices (into 0 .. lines-1) of the polluted lines, in the order drawn: a partial Fisher-Yates shuffle, so
// every subset of that size is equally likely and no index repeats.
inline std::vector<uint32_t> pick_polluted_lines(uint32_t lines, double fraction, uint64_t seed) {
  const uint32_t count = polluted_line_count(lines, fraction);
  std::vector<uint32_t> order(lines);
  std::iota(order.begin(), order.end(), 0u);
  common::SplitMix64 rng(seed);
  for (uint32_t i = 0; i < count; ++i) std::swap(order[i], order[i + rng.next_below(lines - i)]);
  order.resize(count);
  return order;
}

}  // namespace simtlm::mem
