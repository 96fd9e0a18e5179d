// divergence.unit, the one key that selects an SM's divergence unit, and the two keys it replaces
// (compaction.mechanism, wpu.task_mode), still read with a deprecation warning (hw/divergence/mechanism.hpp,
// hw/sm_schema.hpp, hw/wpu_schema.hpp, models/config/machine_config.cpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "hw/divergence/divergence_params.hpp"
#include "hw/divergence/mechanism.hpp"
#include "models/config/machine_config.hpp"

namespace simtlm::hw {
namespace {

namespace fs = std::filesystem;
using config::ConfigError;
using config::MachineConfig;

fs::path write_config(const std::string& name, const std::string& text) {
  const fs::path path = fs::temp_directory_path() / ("simtlm-divergence-key-" + name + ".yaml");
  std::ofstream(path) << text;
  return path;
}

TEST(DivergenceKey, EveryUnitNameParsesBackAndItsTraitsAreItsOwn) {
  for (const MechanismTraits& t : kMechanisms) {
    ASSERT_EQ(parse_unit(t.name), t.unit);
    EXPECT_EQ(&traits(t.unit), &t);
  }
  EXPECT_FALSE(parse_unit("none"));  // the compaction label is not a unit name
  EXPECT_EQ(unit_of(Compaction::none), UnitKind::warp_stacks);
  EXPECT_EQ(unit_of(Compaction::capri), UnitKind::capri);
  // Only tbc and CAPRI put threads in permuted home lanes through the priority-encoder compactor.
  EXPECT_TRUE(traits(UnitKind::tbc).permutes_lanes && traits(UnitKind::capri).permutes_lanes);
  EXPECT_FALSE(traits(UnitKind::ideal).permutes_lanes || traits(UnitKind::warp_stacks).permutes_lanes);
  EXPECT_TRUE(forms_warps(Compaction::ideal));
  EXPECT_FALSE(forms_warps(Compaction::none));
  EXPECT_EQ(traits(UnitKind::warp_slices).work, WorkKind::task_partition);
  EXPECT_EQ(traits(UnitKind::warp_stacks).study_label, "no_tbc");
}

TEST(DivergenceKey, TheDefaultIsWarpStacksWithNoWarning) {
  const MachineConfig c;
  EXPECT_EQ(c.str("divergence.unit"), "warp_stacks");
  EXPECT_TRUE(c.warnings().empty());
  EXPECT_EQ(divergence_params(c).unit, UnitKind::warp_stacks);
}

TEST(DivergenceKey, TheNewKeySetsUnitAndCompactionLabel) {
  MachineConfig c;
  c.set("divergence.unit", "capri", "test");
  const DivergenceParams d = divergence_params(c);
  EXPECT_EQ(d.unit, UnitKind::capri);
  EXPECT_EQ(d.mechanism(), Compaction::capri);
  EXPECT_TRUE(c.warnings().empty());
  EXPECT_THROW(c.set("divergence.unit", "none", "test"), ConfigError);  // the old spelling is not a unit
}

TEST(DivergenceKey, CompactionMechanismIsReadWithADeprecationWarning) {
  MachineConfig c;
  c.set("compaction.mechanism", "tbc", "--set");
  EXPECT_EQ(c.str("divergence.unit"), "tbc");
  ASSERT_EQ(c.warnings().size(), 1u);
  EXPECT_EQ(c.warnings()[0],
            "--set: compaction.mechanism is deprecated: write divergence.unit: tbc (docs/configs.md)");
  c.set("compaction.mechanism", "none", "--set");
  EXPECT_EQ(c.str("divergence.unit"), "warp_stacks");
  EXPECT_EQ(divergence_params(c).unit, UnitKind::warp_stacks);
}

TEST(DivergenceKey, TaskModeIsReadAsWarpSlices) {
  MachineConfig c;
  c.set("wpu.task_mode", "true", "--set");
  EXPECT_EQ(c.str("divergence.unit"), "warp_slices");
  // As before, compaction.mechanism: none is what task mode ran with: it does not leave task mode.
  c.set("compaction.mechanism", "none", "--set");
  EXPECT_EQ(c.str("divergence.unit"), "warp_slices");
  c.set("wpu.task_mode", "false", "--set");
  EXPECT_EQ(c.str("divergence.unit"), "warp_stacks");
  c.set("divergence.unit", "tbc", "--set");
  c.set("wpu.task_mode", "false", "--set");  // false leaves any unit but warp_slices alone
  EXPECT_EQ(c.str("divergence.unit"), "tbc");
  EXPECT_EQ(c.warnings().size(), 4u);
}

TEST(DivergenceKey, AnOldStyleFileLoadsAsTheNewKeyWouldHaveIt) {
  const fs::path old_style = write_config("old", "wpu:\n  task_mode: true\n  width: 16\n  depth: 2\n");
  const fs::path new_style =
      write_config("new", "divergence:\n  unit: warp_slices\nwpu:\n  width: 16\n  depth: 2\n");
  const MachineConfig a = MachineConfig::load(old_style), b = MachineConfig::load(new_style);
  EXPECT_EQ(a.str("divergence.unit"), b.str("divergence.unit"));
  ASSERT_EQ(a.warnings().size(), 1u);
  EXPECT_EQ(a.warnings()[0], old_style.string() +
                                 ":2: wpu.task_mode is deprecated: write divergence.unit: warp_slices "
                                 "(docs/configs.md)");
  EXPECT_TRUE(b.warnings().empty());
}

TEST(DivergenceKey, AFileThatSelectsTwoUnitsIsRefusedNamingBothLines) {
  const fs::path both = write_config("both", "divergence:\n  unit: tbc\ncompaction:\n  mechanism: capri\n");
  try {
    MachineConfig::load(both);
    FAIL() << "loaded";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), both.string() +
                                         ":4: compaction.mechanism=capri asks for divergence.unit: "
                                         "capri, but " +
                                         both.string() +
                                         ":2 set divergence.unit: tbc; keep only divergence.unit");
  }
  // The same unit twice is no conflict, only a warning.
  const fs::path same = write_config("same", "divergence:\n  unit: tbc\ncompaction:\n  mechanism: tbc\n");
  EXPECT_EQ(MachineConfig::load(same).str("divergence.unit"), "tbc");
}

TEST(DivergenceKey, NoBundledMachineUsesADeprecatedKey) {
  for (const auto& entry : fs::directory_iterator(fs::path(SIMTLM_SOURCE_DIR) / "configs")) {
    if (entry.path().extension() != ".yaml") continue;
    EXPECT_TRUE(MachineConfig::load(entry.path()).warnings().empty()) << entry.path();
  }
}

}  // namespace
}  // namespace simtlm::hw
