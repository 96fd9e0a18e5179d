// Runs the timing model in a forked child process, so one process can run it several times (SystemC allows
// one elaboration per process) and a crash of the model cannot take the caller down. Used by the tests and by
// `simtlm demo`.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>

#include "models/config/machine_config.hpp"
#include "models/launch/session.hpp"
#include "sim/timing_run.hpp"

namespace simtlm::sim {

// What else the child reports: every buffer's bytes as hex ("buffers"), and what `report` adds (it runs in
// the child after the simulation, e.g. to read the statistics of hooks installed on session_options).
struct ChildReport {
  bool buffers = false;
  std::function<void(nlohmann::json& out)> report;
};

// What the child reports: {"stats", "sha256": {buffer: hex}, "failures": [...], "reference_checked"}, or
// {"error", "error_kind"} with error_kind kernel, timing, config, other or crash.
nlohmann::json run_timing_in_child(const launch::Launch& launch,
                                   const launch::SessionOptions& session_options,
                                   const config::MachineConfig& machine, const TimingOptions& options = {},
                                   const ChildReport& extra = {});

// The bytes of a "buffers" entry.
std::vector<uint8_t> from_hex(const std::string& text);

}  // namespace simtlm::sim
