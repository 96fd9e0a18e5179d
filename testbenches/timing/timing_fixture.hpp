// Shared helpers of the timing tests; each run happens in a forked child (sim/timing_child.hpp).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

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

inline nlohmann::json run_timing_child(const launch::Launch& l, const config::MachineConfig& machine,
                                       const sim::TimingOptions& options = {}) {
  return sim::run_timing_in_child(l, session_options(), machine, options);
}

inline config::MachineConfig machine(const std::string& file,
                                     const std::vector<std::pair<std::string, std::string>>& sets = {}) {
  config::MachineConfig m =
      file.empty() ? config::MachineConfig() : config::MachineConfig::load(source_path("configs/" + file));
  for (const auto& [path, value] : sets) m.set(path, value);
  return m;
}

}  // namespace simtlm::timing_test
