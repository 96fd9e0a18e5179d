#include "models/ptx/limits.hpp"

namespace simtlm::ptx::limits {

std::string limit_message(const std::string& what, uint64_t value, uint64_t limit, const char* advice) {
  std::string message = what + " is " + std::to_string(value) + ", over simtlm's limit of " +
                        std::to_string(limit) + " (docs/reliability.md)";
  if (advice && *advice) {
    message += ": ";
    message += advice;
  }
  return message;
}

}  // namespace simtlm::ptx::limits
