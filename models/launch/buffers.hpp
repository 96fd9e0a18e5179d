// Buffer element types and the deterministic random generator behind buffer initialization.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "models/ptx/ir.hpp"

namespace simtlm::launch {

// Buffer element types accepted in launch files: u8 s8 u16 s16 u32 s32 u64 s64 f32 f64.
std::optional<ptx::Type> parse_buffer_type(const std::string& name);
unsigned element_bytes(ptx::Type type);
// Writes one element of `type` from its text (integers: decimal, 0x hex, range-checked; floats: decimal,
// hex floats, inf, -inf, nan, parsed straight to the type). Returns "" or what is wrong.
std::string encode_element(ptx::Type type, const std::string& text, uint8_t* out);

// The exact integer `text` (decimal or 0x; else `value` when it is integral, as for "1e3") if it lies in the
// range of the integer type `type` (unsigned types: from 0); otherwise "" is not returned but what is wrong.
std::string exact_integer(ptx::Type type, const std::string& text, double value, __int128& out);

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
  uint64_t next_below(uint64_t range);

 private:
  uint64_t state_;
};

// FNV-1a of a buffer name: mixes the name into the seed so buffers get independent streams.
uint64_t hash_name(const std::string& name);

}  // namespace simtlm::launch
