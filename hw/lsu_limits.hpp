#pragma once
// The bounds of the requests in flight below one SM's load/store unit (lsu.max_loads, lsu.store_buffer,
// lsu.atomic_queue in docs/configs.md): the struct, its rows and its reader, plain C++.
#include <cstdint>

#include "models/config/config_section.hpp"

namespace simtlm::hw {

struct LsuLimits {
  uint32_t loads = 256;   // reads, stack fills included
  uint32_t stores = 64;   // writes, stack spills included
  uint32_t atomics = 32;  // atomics (reads the L2's atomic unit performs)
};

inline config::ParamRows lsu_limit_rows() {
  using K = config::ParamSpec::Kind;
  return {
      {"lsu.max_loads",
       K::unsigned_int,
       "256",
       1,
       65536,
       {},
       "read requests (stack fills included) in flight below one SM's load/store unit before it stalls "
       "memory instructions: 32 MSHRs x 8 merged requests, the Fermi L1 of GPGPU-Sim's GTX 480 "
       "configuration (dl1 A:32:8)"},
      {"lsu.store_buffer",
       K::unsigned_int,
       "64",
       1,
       65536,
       {},
       "write requests (stack spills included) in flight below one SM's load/store unit before it stalls "
       "memory instructions; no public figure: large enough that no committed workload waits on it"},
      {"lsu.atomic_queue",
       K::unsigned_int,
       "32",
       1,
       65536,
       {},
       "atomic requests in flight below one SM's load/store unit before it stalls memory instructions: "
       "the L1's 32 MSHRs, which atomics passing the L1 hold"},
  };
}

inline LsuLimits lsu_limits(const config::ConfigSection& lsu) {
  return LsuLimits{lsu.u32("max_loads"), lsu.u32("store_buffer"), lsu.u32("atomic_queue")};
}

}  // namespace simtlm::hw
