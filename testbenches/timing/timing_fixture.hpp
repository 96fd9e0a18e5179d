// Shared helpers of the timing tests; each run happens in a forked child (sim/timing_child.hpp).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/stats.hpp"
#include "models/config/machine_config.hpp"
#include "models/launch/session.hpp"
#include "models/launch/sha256.hpp"
#include "sim/timing_child.hpp"
#include "workloads/reference/reference.hpp"

namespace simtlm::timing_test {

namespace fs = std::filesystem;

inline fs::path source_path(const std::string& relative) {
  return fs::path(SIMTLM_SOURCE_DIR) / relative;
}

inline fs::path workload_launch(const std::string& name) {
  return source_path("workloads/" + name + "/" + name + ".yaml");
}

inline launch::SessionOptions session_options() {
  launch::SessionOptions o;
  o.find_reference = workloads::find_reference;
  o.capture_printf = true;
  return o;
}

// The child's result parsed (sim::ChildResult): errors, checks and hashes as fields, the statistics as the
// typed group of the timing declaration (r.stats()), whose accessors throw on an undeclared name.
inline sim::ChildResult run_timing_child(const launch::Launch& l, const config::MachineConfig& machine,
                                         const sim::TimingOptions& options = {}) {
  return sim::run_timing_child(l, session_options(), machine, options);
}

// The SHA-256 of every buffer, as sim::ChildResult::sha256 holds them (a functional run's, to compare).
inline std::map<std::string, std::string> sha256_of(
    const std::map<std::string, std::vector<uint8_t>>& buffers) {
  std::map<std::string, std::string> sha;
  for (const auto& [name, bytes] : buffers) sha[name] = launch::sha256_hex(bytes);
  return sha;
}

// The sum of a vector statistic's elements (an SM's stalls over every reason).
inline uint64_t sum(const std::vector<stats::Value>& values) {
  uint64_t total = 0;
  for (const stats::Value& v : values) total += v.integer();
  return total;
}

// The failed checks, for a message.
inline std::string failures_text(const sim::ChildResult& r) {
  return ::testing::PrintToString(r.failures);
}

inline config::MachineConfig machine(const std::string& file,
                                     const std::vector<std::pair<std::string, std::string>>& sets = {}) {
  config::MachineConfig m =
      file.empty() ? config::MachineConfig() : config::MachineConfig::load(source_path("configs/" + file));
  for (const auto& [path, value] : sets) m.set(path, value);
  return m;
}

}  // namespace simtlm::timing_test
