#include "models/config/config_section.hpp"

#include <utility>

namespace simtlm::config {

ConfigSection::ConfigSection(const MachineConfig& config, std::string prefix)
    : config_(config), prefix_(std::move(prefix)) {}

uint32_t ConfigSection::u32(const std::string& key) const {
  const uint64_t value = u64(key);
  if (value > UINT32_MAX)
    throw ConfigError(config_.origin() + ": " + path(key) + ": " + std::to_string(value) +
                      " does not fit in 32 bits");
  return static_cast<uint32_t>(value);
}

void ConfigSection::require(bool ok, const std::string& message) const {
  if (!ok) throw ConfigError(config_.origin() + ": " + message);
}

}  // namespace simtlm::config
