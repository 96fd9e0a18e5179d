#include "hw/divergence/divergence_params.hpp"

#include <stdexcept>

#include "hw/divergence/unit_registry.hpp"
#include "hw/stack_schema.hpp"
#include "hw/wpu_schema.hpp"
#include "models/config/config_section.hpp"

namespace simtlm::hw {

const MechanismTraits& DivergenceParams::traits() const {
  if (unit != UnitKind::registered) return hw::traits(unit);
  const UnitEntry* entry = find_unit(unit_name);
  if (!entry) throw std::invalid_argument("unknown divergence unit " + unit_name);
  return entry->traits;
}

DivergenceParams divergence_params(const config::MachineConfig& config) {
  const config::ConfigSection compaction(config, "compaction");
  DivergenceParams d;
  d.select(config.str("divergence.unit"));
  d.stack = stack_params(config::ConfigSection(config, "stack"));
  const StackTiming& t = d.stack.timing;
  d.stack_timing_measured = t.divergent_branch || t.pop || t.spill || t.fill;
  d.permutation = compaction.flag("slp_disable") ? NamedPermutation::kIdentity
                                                 : *parse_permutation(compaction.str("permutation"));
  d.permutation_seed = compaction.u64("seed");
  d.formation_cycles = compaction.u32("formation_cycles");
  d.capri_table_entries = compaction.u32("capri_table_entries");
  d.capri_miss_adequate = compaction.str("capri_miss") == "adequate";
  d.capri_clear_per_kernel = compaction.str("capri_clear") == "kernel";
  d.wpu = wpu_params(config);
  return d;
}

}  // namespace simtlm::hw
