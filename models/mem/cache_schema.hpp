#pragma once
// The rows and the checks of the L1 (l1.*) and L2 bank (l2.*) parameters. Plain C++ so that every user of
// the schema (hw/schema/machine_schema.cpp: the functional mode, `simtlm config`, the config fuzzer) sees
// them without SystemC; mem_params.hpp reads them into CacheParams.
#include <string>

#include "models/config/config_section.hpp"

namespace simtlm::mem {

inline config::ParamRows l1_cache_rows() {
  using K = config::ParamSpec::Kind;
  return {
      {"l1.size_bytes",
       K::unsigned_int,
       "32768",
       1024,
       1 << 20,
       {},
       "capacity; at most 1 MiB, as every SM keeps a tag entry per line (1,024 SMs of 1 MiB in 32-byte lines "
       "hold 1 GiB of tags)"},
      {"l1.assoc", K::unsigned_int, "8", 1, 256, {}, "ways"},
      {"l1.line_bytes", K::unsigned_int, "128", 32, 1024, {}, "line size", true},
      {"l1.sector_bytes", K::unsigned_int, "32", 32, 1024, {}, "sector size (fill granularity)", true},
      {"l1.banks", K::unsigned_int, "4", 1, 64, {}, "banks"},
      {"l1.hit_latency", K::unsigned_int, "20", 1, 1000, {}, "hit latency, cycles"},
      {"l1.mshrs", K::unsigned_int, "32", 1, 4096, {}, "miss status holding registers"},
      {"l1.mshr_merge",
       K::unsigned_int,
       "8",
       1,
       4096,
       {},
       "requests merged on one MSHR before a further miss to its line waits (GPGPU-Sim GTX 480 dl1: 8)"},
      {"l1.write_buffer",
       K::unsigned_int,
       "16",
       1,
       4096,
       {},
       "writes outstanding below the L1 before it refuses further stores (back-pressure)"},
      {"l1.write_policy",
       K::choice,
       "write_through",
       0,
       0,
       {"write_through", "write_back"},
       "write-through no-allocate (GPU style) or write-back write-allocate"},
  };
}

inline config::ParamRows l2_cache_rows() {
  using K = config::ParamSpec::Kind;
  // Every line of every cache is allocated up front (32 bytes of tag state each); 256 MiB of 32-byte lines
  // is 8 Mi lines, 256 MB of host memory.
  constexpr double kMaxL2Bytes = double(1 << 28);
  return {
      {"l2.size_bytes",
       K::unsigned_int,
       "262144",
       4096,
       kMaxL2Bytes,
       {},
       "total capacity (all banks); at most 256 MiB, as the model keeps a tag entry per line"},
      {"l2.assoc", K::unsigned_int, "16", 1, 256, {}, "ways"},
      {"l2.line_bytes", K::unsigned_int, "128", 32, 1024, {}, "line size", true},
      {"l2.latency", K::unsigned_int, "100", 1, 10000, {}, "lookup latency, cycles"},
      {"l2.mshrs", K::unsigned_int, "64", 1, 4096, {}, "MSHRs per bank"},
      {"l2.mshr_merge", K::unsigned_int, "8", 1, 4096, {}, "requests merged on one MSHR per bank"},
      {"l2.write_buffer",
       K::unsigned_int,
       "16",
       1,
       4096,
       {},
       "writes outstanding below one L2 bank (to DRAM) before it refuses further stores"},
      {"l2.atomic_cycles",
       K::unsigned_int,
       "9",
       1,
       10000,
       {},
       "cycles between two atomic read-modify-writes of one word at a bank's atomic unit (the unit "
       "issues one per cycle); 9 = Fermi, from the GK110 whitepaper's 9x faster same-address atomics at "
       "one per clock"},
  };
}

inline void check_l1_cache(const config::ConfigSection& l1) {
  const uint64_t size = l1.u64("size_bytes"), line = l1.u64("line_bytes"), sector = l1.u64("sector_bytes");
  const uint64_t assoc = l1.u64("assoc");
  l1.require(sector <= line, "l1.sector_bytes: larger than l1.line_bytes");
  // The schema keeps both sizes powers of two in [32, 1024]: at most 32 sectors, a whole number of them.
  l1.require(size / line % assoc == 0, "l1.assoc: does not divide the line count");
  l1.require(size % (line * assoc) == 0, "l1.size_bytes must be a multiple of l1.line_bytes x l1.assoc");
}

// One bank holds l2.size_bytes / l2.banks: whole sets of lines, so the ways also divide its lines.
inline void check_l2_cache(const config::ConfigSection& l2) {
  const uint64_t bank_bytes = l2.u64("size_bytes") / l2.u64("banks");
  l2.require(bank_bytes % (l2.u64("line_bytes") * l2.u64("assoc")) == 0 && bank_bytes > 0,
             "l2.size_bytes / l2.banks must be a multiple of l2.line_bytes x l2.assoc");
}

}  // namespace simtlm::mem
