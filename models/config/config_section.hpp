#pragma once
// One component's view of a machine configuration: the parameters under its prefix ("l1" reads "l1.assoc"),
// at the width the component holds them, and the checks of their combinations, whose errors name the
// configuration's origin (MachineConfig::origin()).
#include <cstdint>
#include <string>
#include <vector>

#include "models/config/machine_config.hpp"

namespace simtlm::config {

using ParamRows = std::vector<ParamSpec>;

class ConfigSection {
 public:
  ConfigSection(const MachineConfig& config, std::string prefix);

  std::string path(const std::string& key) const { return prefix_ + "." + key; }
  // Throws when the value does not fit (the schema's maxima keep every 32-bit parameter within it; this
  // keeps a later, larger maximum from silently cutting a value).
  uint32_t u32(const std::string& key) const;
  uint64_t u64(const std::string& key) const { return config_.u(path(key)); }
  double real(const std::string& key) const { return config_.real(path(key)); }
  const std::string& str(const std::string& key) const { return config_.str(path(key)); }
  bool flag(const std::string& key) const { return config_.flag(path(key)); }
  // Throws ConfigError("<origin>: <message>") unless ok.
  void require(bool ok, const std::string& message) const;
  // Another section of the same configuration, for a check across components.
  ConfigSection section(const std::string& prefix) const { return ConfigSection(config_, prefix); }

 private:
  const MachineConfig& config_;
  std::string prefix_;
};

}  // namespace simtlm::config
