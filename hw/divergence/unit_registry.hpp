// Divergence units by name (divergence.unit): the five built in, and any a new file registers. A new
// mechanism is one file that defines its DivergenceUnit and a static DivergenceUnitRegistration naming it,
// its traits, its maker and the statistics group it adds (if any); nothing else in the SM, the config
// schema or the statistics schema names it (testbenches/timing/test_new_mechanism.cpp builds one).
//
// The built-in units are listed in unit_registry.cpp rather than registered from their own files: a static
// registration in a file of a static library is dropped by the linker when nothing else in that file is used.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "common/stats.hpp"
#include "hw/divergence/divergence_unit.hpp"

namespace simtlm::hw {

using UnitMaker = std::unique_ptr<DivergenceUnit> (*)(const DivergenceParams& params,
                                                      const TimingKernel& kernel, SlotHost& host,
                                                      const CompactionUnits& units);

struct UnitEntry {
  MechanismTraits traits;  // traits.unit is UnitKind::registered for a registered unit
  UnitMaker make = nullptr;
  const stats::GroupDecl* stats = nullptr;  // the group its add_statistics() adds (nullptr: none)
};

// Built-in units first (kMechanisms' order), then the registered ones in registration order.
const UnitEntry* find_unit(std::string_view name);

// Registers a unit at static initialization (before the configuration schema is first read). Throws
// std::logic_error for a name already taken.
struct DivergenceUnitRegistration {
  explicit DivergenceUnitRegistration(const UnitEntry& entry);
};

}  // namespace simtlm::hw
