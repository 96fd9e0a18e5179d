// Buffer element types and the seeding of buffer initialization (common/prng.hpp draws the values).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/prng.hpp"
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

// The project's PRNG, under the name the launch code and its tests have always used.
using common::SplitMix64;

// FNV-1a of a buffer name: mixes the name into the seed so buffers get independent streams.
uint64_t hash_name(const std::string& name);

}  // namespace simtlm::launch
