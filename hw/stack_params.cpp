#include "hw/stack_params.hpp"

#include <stdexcept>

namespace simtlm::hw {

StackTiming timing_preset(const std::string& name) {
  if (name == "kepler") return kepler_timing();
  if (name == "maxwell") return maxwell_timing();
  throw std::invalid_argument("unknown stack timing preset '" + name + "' (kepler, maxwell)");
}

}  // namespace simtlm::hw
