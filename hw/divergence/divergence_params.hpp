// A divergence unit's parameters, one member of the SM's (SmParams::divergence), read once from their own
// sections by divergence_params(): divergence.unit, stack.*, compaction.* and wpu.* (rows and checks:
// hw/sm_schema.hpp, hw/stack_schema.hpp, hw/wpu_schema.hpp). The SM adds only what it alone knows: its
// number and how many contexts and CTAs it holds.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "hw/divergence/mechanism.hpp"
#include "hw/stack_params.hpp"
#include "hw/units/permutations.hpp"
#include "hw/wpu_params.hpp"
#include "models/config/machine_config.hpp"

namespace simtlm::hw {

struct DivergenceParams {
  // divergence.unit, set through select(): its name, and its kind (registered: a unit of the registry,
  // hw/divergence/unit_registry.hpp, known by its name only).
  std::string unit_name = "warp_stacks";
  UnitKind unit = UnitKind::warp_stacks;
  StackParams stack;
  bool stack_timing_measured =
      false;  // a stack preset: its costs include the spill traffic, warps do not wait
  NamedPermutation permutation = NamedPermutation::kIdentity;  // home lanes under compaction
  uint64_t permutation_seed = 1;
  uint32_t formation_cycles = 1;       // the compactor emits one warp per cycle (SLP paper, Figure 2)
  uint32_t capri_table_entries = 32;   // CAPRI's compaction-adequacy prediction table
  bool capri_miss_adequate = true;     // what the table predicts for a branch it does not hold
  bool capri_clear_per_kernel = true;  // the table starts empty at each kernel of a sequence
  WpuParams wpu;                       // warp_slices: the organization and its policy
  // Thread contexts the unit needs on an SM (warp_slices: width x depth; 0: the SM's own count), and the L1
  // banks it assumes when core.dcache_banks is 0 (warp_slices: one per lane, as MV5's WPU).
  uint32_t hardware_contexts() const {
    return traits().work == WorkKind::task_partition ? wpu.contexts() : 0;
  }
  uint32_t default_dcache_banks() const { return traits().work == WorkKind::task_partition ? wpu.width : 0; }
  // The unit's traits, built in or registered, and its compaction label.
  const MechanismTraits& traits() const;
  Compaction mechanism() const { return traits().compaction; }
  void select(std::string_view name) {
    unit_name = name;
    unit = parse_unit(name).value_or(UnitKind::registered);
  }
  // Set by the SM.
  uint32_t sm_id = 0;
  uint32_t contexts = 32;  // CTA warps resident at once (gpu.max_warps_per_sm)
  uint32_t ctas = 8;       // CTAs resident at once (gpu.max_ctas_per_sm)
};

DivergenceParams divergence_params(const config::MachineConfig& config);

}  // namespace simtlm::hw
