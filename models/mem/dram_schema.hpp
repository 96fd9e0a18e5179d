#pragma once
// The rows of a DRAM channel's parameters (dram.*); plain C++, see cache_schema.hpp.
#include "models/config/config_section.hpp"

namespace simtlm::mem {

inline config::ParamRows dram_rows() {
  using K = config::ParamSpec::Kind;
  return {
      {"dram.mode", K::choice, "timed", 0, 0, {"timed", "fixed"}, "timed banks and rows, or a fixed latency"},
      {"dram.fixed_latency", K::unsigned_int, "300", 1, 100000, {}, "latency in fixed mode, core cycles"},
      {"dram.channels", K::unsigned_int, "2", 1, 64, {}, "channels (memory controllers)"},
      {"dram.banks", K::unsigned_int, "16", 1, 64, {}, "banks per channel"},
      {"dram.row_bytes", K::unsigned_int, "2048", 256, 1 << 20, {}, "row (page) size"},
      {"dram.scheduler", K::choice, "fr_fcfs", 0, 0, {"fr_fcfs", "fcfs"}, "request scheduling"},
      {"dram.queue_depth", K::unsigned_int, "32", 1, 4096, {}, "requests queued per channel"},
      {"dram.preset", K::choice, "gddr5", 0, 0, {"none", "gddr5"}, "GDDR5 timing; none = the values below"},
      {"dram.tCL", K::unsigned_int, "12", 1, 1000, {}, "CAS latency, DRAM cycles"},
      {"dram.tRCD", K::unsigned_int, "12", 1, 1000, {}, "activate to read, DRAM cycles"},
      {"dram.tRP", K::unsigned_int, "12", 1, 1000, {}, "precharge, DRAM cycles"},
      {"dram.tRAS", K::unsigned_int, "28", 1, 1000, {}, "activate to precharge, DRAM cycles"},
      {"dram.tCCD", K::unsigned_int, "2", 1, 1000, {}, "column to column, DRAM cycles"},
      {"dram.burst_length", K::unsigned_int, "8", 1, 64, {}, "beats per burst"},
      {"dram.bus_width_bytes", K::unsigned_int, "4", 1, 64, {}, "data bus width per channel"},
      {"dram.clock_ratio", K::real, "1", 0.01, 100, {}, "DRAM command clock / core clock"},
  };
}

}  // namespace simtlm::mem
