// The divergence mechanisms of an SM: the one key that selects each (divergence.unit) and what sets it
// apart, written once here (its compaction label in statistics and studies, whether it forms warps from a
// CTA's threads, whether its work comes as tasks). The factory (hw/divergence/factory.cpp) builds its unit.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace simtlm::hw {

// The compaction a unit performs, as statistics (compaction.mechanism) and the SLP study name it.
enum class Compaction : uint8_t {
  none,   // per-warp reconvergence stacks
  tbc,    // thread block compaction: a CTA-wide stack, warps formed by the priority-encoder compactor
  ideal,  // the same, but any thread may run in any lane (the upper bound)
  capri,  // tbc, but a branch predicted not to gain from compaction runs without synchronizing the CTA
};

inline constexpr std::array<std::string_view, 4> kCompactionNames = {"none", "tbc", "ideal", "capri"};

constexpr std::string_view compaction_name(Compaction c) {
  return kCompactionNames[static_cast<size_t>(c)];
}

constexpr std::optional<Compaction> parse_compaction(std::string_view name) {
  for (size_t i = 0; i < kCompactionNames.size(); ++i) {
    if (kCompactionNames[i] == name) return static_cast<Compaction>(i);
  }
  return std::nullopt;
}

// divergence.unit: which DivergenceUnit an SM runs.
// divergence.unit: which DivergenceUnit an SM runs; `registered`: one added through the unit registry
// (hw/divergence/unit_registry.hpp), known by its name only.
enum class UnitKind : uint8_t { warp_stacks, tbc, ideal, capri, warp_slices, registered };

// Where a unit's work comes from (hw/work/work_source.hpp).
enum class WorkKind : uint8_t { grid_ctas, task_partition };

struct MechanismTraits {
  UnitKind unit;
  std::string_view name;  // divergence.unit
  Compaction compaction;  // its compaction label (none for the units that compact nothing)
  bool forms_warps;       // forms warps from a CTA's threads: the compactor and the lane permutation matter
  bool permutes_lanes;    // the priority-encoder compactor puts threads in permuted home lanes (ideal packs
                          // freely)
  WorkKind work;
  std::string_view study_label;  // in the studies' tables (the SLP paper calls per-warp stacks "no TBC")
  std::string_view paper;        // where it comes from
};

inline constexpr std::array<MechanismTraits, 5> kMechanisms = {{
    {UnitKind::warp_stacks, "warp_stacks", Compaction::none, false, false, WorkKind::grid_ctas, "no_tbc",
     "divergence-cost-cuda.txt"},
    {UnitKind::tbc, "tbc", Compaction::tbc, true, true, WorkKind::grid_ctas, "tbc",
     "slp-simd-lane-permutation.txt"},
    {UnitKind::ideal, "ideal", Compaction::ideal, true, false, WorkKind::grid_ctas, "ideal",
     "slp-simd-lane-permutation.txt"},
    {UnitKind::capri, "capri", Compaction::capri, true, true, WorkKind::grid_ctas, "capri",
     "slp-simd-lane-permutation.txt"},
    {UnitKind::warp_slices, "warp_slices", Compaction::none, false, false, WorkKind::task_partition,
     "warp_slices", "robust-simd.txt"},
}};

constexpr const MechanismTraits& traits(UnitKind unit) {
  return kMechanisms[static_cast<size_t>(unit)];
}

// The built-in units' names; divergence_unit_names() adds those registered since (unit_registry.cpp).
constexpr std::optional<UnitKind> parse_unit(std::string_view name) {
  for (const MechanismTraits& t : kMechanisms) {
    if (t.name == name) return t.unit;
  }
  return std::nullopt;
}

// The unit of a compaction label (the deprecated compaction.mechanism key and the studies' mechanism names).
static_assert(static_cast<int>(UnitKind::tbc) == static_cast<int>(Compaction::tbc) &&
                  static_cast<int>(UnitKind::ideal) == static_cast<int>(Compaction::ideal) &&
                  static_cast<int>(UnitKind::capri) == static_cast<int>(Compaction::capri),
              "unit_of maps a compaction label onto the unit of the same number");
constexpr UnitKind unit_of(Compaction c) {
  return c == Compaction::none ? UnitKind::warp_stacks : static_cast<UnitKind>(c);
}

// Every divergence.unit value: the built-in units, then the registered ones (the schema's choices). Here, not
// in the registry, so that the configuration library, which only includes the schema's headers, has it.
inline std::vector<const char*>& divergence_unit_names() {
  static std::vector<const char*> names = [] {
    std::vector<const char*> built_in;
    for (const MechanismTraits& t : kMechanisms) built_in.push_back(t.name.data());
    return built_in;
  }();
  return names;
}

// Whether the mechanism forms warps from the CTA's threads (the compactor and the lane permutation matter).
constexpr bool forms_warps(Compaction c) {
  return traits(unit_of(c)).forms_warps;
}

}  // namespace simtlm::hw
