// `simtlm mem-replay` (docs/systemc.md, "Trace-driven memory runs"): drives the memory system of a machine
// configuration from a request trace (models/mem/mem_trace.hpp) through an AT initiator, starting at the
// L1, at the L2 (no L1: the initiator sits on a crossbar port) or at DRAM (no L1 and no L2), and reports the
// latency distribution, bandwidth, row-buffer hits and queue occupancy per DRAM channel. One elaboration per
// process, as every SystemC run.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "models/config/machine_config.hpp"
#include "models/mem/mem_trace.hpp"

namespace simtlm::sim {

enum class ReplayLevel : uint8_t { l1, l2, dram };
ReplayLevel parse_replay_level(const std::string& text);  // "l1", "l2", "dram"; std::invalid_argument else

struct ReplayOptions {
  ReplayLevel level = ReplayLevel::dram;
  uint32_t request_bytes = 32;  // each request reads or writes this many bytes from its address, aligned down
};

// The run's statistics as one JSON document (its keys are described in docs/systemc.md).
nlohmann::json run_mem_replay(const config::MachineConfig& config, const mem::MemTrace& trace,
                              const ReplayOptions& options);

// A short table of the document for the terminal.
std::string describe_replay(const nlohmann::json& doc);

}  // namespace simtlm::sim
