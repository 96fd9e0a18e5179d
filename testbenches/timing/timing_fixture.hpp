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

// A launch file of testbenches/timing/.
inline launch::Launch timing_launch(const std::string& yaml) {
  return launch::load_launch(source_path("testbenches/timing/" + yaml));
}

// The SHA-256 of a one-word u32 buffer holding v (little-endian), as sim::ChildResult::sha256 holds it.
inline std::string u32_sha256(uint32_t v) {
  std::vector<uint8_t> bytes(4);
  for (int i = 0; i < 4; ++i) bytes[i] = static_cast<uint8_t>(v >> (8 * i));
  return launch::sha256_hex(bytes);
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

// Runs `l` on the timing model under configs/`config` (a stack preset, which models the paper's one-warp SM,
// gets two warp slots) and checks that each warp issues what it issues in the functional run (calls and
// divergence reconverge the same way in both). Returns the timing run's result; a failed run fails the test.
inline sim::ChildResult run_like_functional(const launch::Launch& l, const std::string& config) {
  const bool preset = config != "default.yaml";
  sim::ChildResult t =
      run_timing_child(l, preset ? machine(config, {{"gpu.max_warps_per_sm", "2"}}) : machine(config));
  if (!t.ok()) {
    ADD_FAILURE() << t.error;
    return t;
  }
  launch::Session session(l, session_options());
  const launch::SessionResult f = session.run();
  const stats::Group s = t.stats();
  EXPECT_EQ(s.integer("warp_instructions"), f.stats.warp_instructions);
  EXPECT_EQ(s.integer("thread_instructions"), f.stats.thread_instructions);
  EXPECT_EQ(s.integer("branches"), f.stats.branches);
  EXPECT_EQ(s.integer("divergent_branches"), f.stats.divergent_branches);
  return t;
}

}  // namespace simtlm::timing_test
