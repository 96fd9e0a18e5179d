#pragma once
// The rows of the crossbar's parameters (interconnect.*); plain C++, see cache_schema.hpp.
#include "models/config/config_section.hpp"

namespace simtlm::mem {

inline config::ParamRows crossbar_rows() {
  using K = config::ParamSpec::Kind;
  return {
      {"interconnect.latency", K::unsigned_int, "8", 1, 10000, {}, "crossbar traversal, cycles"},
      {"interconnect.bytes_per_cycle", K::unsigned_int, "32", 1, 4096, {}, "bandwidth per port"},
      {"interconnect.queue_depth", K::unsigned_int, "8", 1, 4096, {}, "requests buffered per port"},
  };
}

}  // namespace simtlm::mem
