#pragma once
// The memory system's rows in reference order (its own l1.enabled, l1.disabled_fraction, l1.pollution,
// l1.pollution_seed, l2.enabled and l2.banks around its components' rows) and its checks: each cache's,
// then those across components. Plain C++, see cache_schema.hpp.
#include <string>

#include "models/config/config_section.hpp"
#include "models/mem/cache_schema.hpp"
#include "models/mem/crossbar_schema.hpp"
#include "models/mem/dram_schema.hpp"

namespace simtlm::mem {

inline config::ParamRows memory_rows() {
  using K = config::ParamSpec::Kind;
  config::ParamRows rows = {
      {"l1.enabled", K::boolean, "true", 0, 0, {}, "per-SM L1 data cache present"},
  };
  for (const config::ParamSpec& row : l1_cache_rows()) rows.push_back(row);
  rows.push_back({"l1.disabled_fraction",
                  K::real,
                  "0",
                  0,
                  1,
                  {},
                  "fraction of lines disabled (cache pollution studies)"});
  rows.push_back(
      {"l1.pollution",
       K::real,
       "0",
       0,
       0.95,
       {},
       "fraction of every L1's lines polluted: round(fraction x lines) lines drawn at random, never "
       "hit nor allocated, fixed for the whole run (Robust SIMD Section VII-B; "
       "docs/memory-system.md)"});
  rows.push_back({"l1.pollution_seed",
                  K::unsigned_int,
                  "1",
                  0,
                  config::kLargestParam,
                  {},
                  "seed of the polluted lines; each SM's L1 draws its own set from it and its index"});
  for (const config::ParamSpec& row : crossbar_rows()) rows.push_back(row);
  rows.push_back(
      {"l2.enabled",
       K::boolean,
       "true",
       0,
       0,
       {},
       "L2 cache present; false (GT200): requests cross the crossbar straight to the DRAM channels, "
       "through `l2.banks` memory partitions still interleaved by `l2.line_bytes`, and an atomic is "
       "one DRAM read (no atomic unit: `l2.atomic_cycles` unused)"});
  rows.push_back({"l2.banks", K::unsigned_int, "2", 1, 256, {}, "L2 banks, interleaved by line address"});
  for (const config::ParamSpec& row : l2_cache_rows()) rows.push_back(row);
  for (const config::ParamSpec& row : dram_rows()) rows.push_back(row);
  return rows;
}

// The checks across the memory components.
inline void check_memory_links(const config::MachineConfig& config) {
  const config::ConfigSection l1(config, "l1"), l2(config, "l2"), dram(config, "dram");
  // An L1 fill is one request for the missing sectors of its line, so an L1 line must lie within one L2
  // line (and one crossbar bank and DRAM channel, which interleave by the L2 line).
  const uint64_t l1_line = l1.u64("line_bytes"), l2_line = l2.u64("line_bytes");
  l1.require(!l1.flag("enabled") || l1_line <= l2_line,
             "l1.line_bytes (" + std::to_string(l1_line) + ") must not exceed l2.line_bytes (" +
                 std::to_string(l2_line) + "): an L1 fill would span two L2 lines");
  const uint64_t banks = l2.u64("banks"), channels = dram.u64("channels");
  dram.require(banks % channels == 0, "l2.banks (" + std::to_string(banks) +
                                          ") must be a multiple of dram.channels (" +
                                          std::to_string(channels) + "): each L2 bank talks to one channel");
}

inline void check_memory(const config::MachineConfig& config) {
  check_l1_cache(config::ConfigSection(config, "l1"));
  check_l2_cache(config::ConfigSection(config, "l2"));
  check_memory_links(config);
}

}  // namespace simtlm::mem
