#include "hw/stack_params.hpp"

#include <stdexcept>

#include "hw/stack_schema.hpp"

namespace simtlm::hw {

StackTiming timing_preset(const std::string& name) {
  if (name == "kepler") return kepler_timing();
  if (name == "maxwell") return maxwell_timing();
  throw std::invalid_argument("unknown stack timing preset '" + name + "' (kepler, maxwell)");
}

StackParams stack_params(const config::ConfigSection& stack) {
  check_stack(stack);
  StackParams p;
  p.discipline = stack.str("discipline") == "token" ? Discipline::token : Discipline::postdom;
  p.onchip_entries = stack.u32("entries");
  p.chunk_entries = stack.u32("spill_chunk");
  p.spill_base = 0x7d00'0000'0000ull;  // below the shared and local windows, above any allocation
  p.region_bytes = 1ull << 20;
  const std::string& preset = stack.str("preset");
  if (preset != "none") p.timing = timing_preset(preset);
  auto custom = [&](const char* event, uint32_t& field) {
    if (const uint32_t v = stack.u32(std::string("cycles.") + event)) field = v;
  };
  custom("divergent_branch", p.timing.divergent_branch);
  custom("pop", p.timing.pop);
  custom("spill", p.timing.spill);
  custom("fill", p.timing.fill);
  return p;
}

}  // namespace simtlm::hw
