// The project's one pseudo-random generator: buffer initialization, the random lane permutation and test
// vectors all draw from it, so every run is reproducible on any host and standard library.
#pragma once

#include <cstdint>
#include <limits>

namespace simtlm::common {

// splitmix64: tiny, well mixed and fully specified here, so results never depend on a library.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    state_ += 0x9e3779b97f4a7c15ull;
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1) with 53 random bits.
  double next_unit() { return double(next() >> 11) * 0x1.0p-53; }
  // Uniform integer in [0, range) without modulo bias (range > 0).
  uint64_t next_below(uint64_t range) {
    // Rejection sampling: drop the top partial copy of [0, range) so every value is equally likely.
    const uint64_t limit =
        std::numeric_limits<uint64_t>::max() - std::numeric_limits<uint64_t>::max() % range;
    uint64_t x;
    do {
      x = next();
    } while (x >= limit);
    return x % range;
  }

 private:
  uint64_t state_;
};

}  // namespace simtlm::common
