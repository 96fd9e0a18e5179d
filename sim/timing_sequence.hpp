// Runs a launch sequence on the SystemC timing model in one simulation: the Gpu runs kernel after kernel
// with its caches, DRAM state and device memory carried over, writing dirty lines back at every kernel's end.
#pragma once

#include <nlohmann/json.hpp>

#include "models/config/machine_config.hpp"
#include "models/launch/sequence.hpp"
#include "sim/timing_run.hpp"

namespace simtlm::sim {

// Returns the statistics document: totals under the single-launch timing keys, plus "launches" with each
// launch's cycles and statistics (memory-system counters as that launch's increments). Fills result with the
// final buffers and the expect/reference checks. Throws like run_timing, and LaunchError from the sequence.
// options: channel_target, vcd and warp_trace as for run_timing, for the whole sequence (one waveform and
// one trace, kernel after kernel); RTL units (options.units) are refused with std::invalid_argument.
nlohmann::json run_timing_sequence(launch::SequenceSession& session, const config::MachineConfig& config,
                                   launch::SessionResult& result, const TimingOptions& options = {});

}  // namespace simtlm::sim
