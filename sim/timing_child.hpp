// Runs the timing model in a forked child process, so one process can run it several times (SystemC allows
// one elaboration per process) and a crash of the model cannot take the caller down. Used by the tests and by
// `simtlm demo`.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

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

// The child's document parsed in one place (read_child_result), so studies and demos read fields, not keys.
struct ChildResult {
  std::string error, error_kind;  // error empty: the run finished (its checks may still have failed)
  nlohmann::json stats_json;      // the statistics as written (a sequence's has its "launches" too)
  std::map<std::string, std::string> sha256;            // buffer -> SHA-256 of its final contents
  std::map<std::string, std::vector<uint8_t>> buffers;  // with ChildReport::buffers
  std::vector<std::string> failures;                    // expect and reference checks that failed
  bool reference_checked = false;
  nlohmann::json herding;  // what a ChildReport::report put under "herding" (null: nothing)
  bool ok() const { return error.empty(); }
  bool passed() const { return ok() && failures.empty(); }
  // What went wrong first: the error, else the first failed check (empty: nothing).
  std::string problem() const {
    return !error.empty() ? error : failures.empty() ? std::string() : failures[0];
  }
  // A single launch's statistics as declared (docs/stats-schema.md).
  stats::Group stats() const { return timing_stats_from_json(stats_json); }
  uint64_t cycles() const { return stats_json.value("cycles", uint64_t{0}); }
};
ChildResult read_child_result(const nlohmann::json& document);
// run_timing_in_child, parsed.
ChildResult run_timing_child(const launch::Launch& launch, const launch::SessionOptions& session_options,
                             const config::MachineConfig& machine, const TimingOptions& options = {},
                             const ChildReport& extra = {});

}  // namespace simtlm::sim
