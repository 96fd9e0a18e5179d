// The message of the ConfigError a parameter reader throws, for tests of every component's checks.
#pragma once

#include <functional>
#include <string>

#include "models/config/machine_config.hpp"

namespace simtlm::test_support {

inline std::string config_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const config::ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace simtlm::test_support
