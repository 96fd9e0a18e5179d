// Machine configurations as a hostile or careless user writes them (issue 11, defects 7, 11 and 12): values
// wider than their component holds, keys given twice, second documents, deep nesting, a directory for a file,
// and errors blamed on the wrong option.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "hw/wpu_schema.hpp"
#include "models/config/machine_config.hpp"
#include "testbenches/unit/hostile_files.hpp"

namespace simtlm::config {
namespace {

using test::error_of;
using test::HostileFiles;

TEST(ConfigHostile, ADirectoryIsNamedAsSuch) {
  HostileFiles files("config_directory");
  EXPECT_EQ(error_of<ConfigError>([&] { MachineConfig::load(files.dir()); }),
            files.dir().string() + ": is a directory, not a machine configuration");
  EXPECT_EQ(error_of<ConfigError>([&] { MachineConfig::load(files.dir() / "none.yaml"); }),
            (files.dir() / "none.yaml").string() + ": no such machine configuration");
}

TEST(ConfigHostile, DeepNestingIsALocatedErrorWithTheLimit) {
  HostileFiles files("config_deep");
  const auto deep = files.write("deep.yaml", "gpu:\n  sms: 1\nl1: " + std::string(10000, '[') + "\n");
  EXPECT_EQ(error_of<ConfigError>([&] { MachineConfig::load(deep); }),
            deep.string() + ":3: nested 500 levels deep or more; the YAML reader's limit is 499");
}

TEST(ConfigHostile, ASecondDocumentIsRefused) {
  HostileFiles files("config_documents");
  const auto path = files.write("two.yaml", "l1:\n  assoc: 4\n---\nl2:\n  banks: 3\n");
  EXPECT_EQ(
      error_of<ConfigError>([&] { MachineConfig::load(path); }),
      path.string() +
          ":4: a second YAML document: a machine configuration holds one (remove the '---' and what follows, "
          "or merge it)");
}

TEST(ConfigHostile, AKeyGivenTwiceIsRefusedWhereverItIs) {
  HostileFiles files("config_duplicates");
  const auto section = files.write("section.yaml", "l1:\n  assoc: 4\nl2:\n  banks: 2\nl1:\n  assoc: 8\n");
  EXPECT_EQ(error_of<ConfigError>([&] { MachineConfig::load(section); }),
            section.string() + ":5: l1: given twice");
  const auto leaf = files.write("leaf.yaml", "dram: {channels: 2, channels: 4}\n");
  EXPECT_EQ(error_of<ConfigError>([&] { MachineConfig::load(leaf); }),
            leaf.string() + ":1: dram.channels: given twice");
}

// Aliases share nodes, so nested ones expand exponentially in any walk; a configuration needs none.
TEST(ConfigHostile, AnchorsAndAliasesAreRefusedWithTheirNames) {
  HostileFiles files("config_aliases");
  const auto alias = files.write("alias.yaml", "l1: &cache\n  assoc: 4\nl2: *cache\n");
  EXPECT_EQ(error_of<ConfigError>([&] { MachineConfig::load(alias); }),
            alias.string() + ":3: YAML aliases (*cache) are not supported");
  const auto merge = files.write("merge.yaml", "l1: &c {assoc: 4}\nl2:\n  <<: *c\n  banks: 2\n");
  EXPECT_EQ(error_of<ConfigError>([&] { MachineConfig::load(merge); }),
            merge.string() + ":3: YAML aliases (*c) are not supported");
  const auto anchor = files.write("anchor.yaml", "gpu:\n  sms: !!int &n 2\n");
  EXPECT_EQ(error_of<ConfigError>([&] { MachineConfig::load(anchor); }),
            anchor.string() + ":2: YAML anchors (&n) are not supported");
}

TEST(ConfigHostile, L2SizePastItsComponentIsRefusedNotCut) {
  // 4,295,229,440 = 2^32 + 262,144 used to reach the L2 cut to 32 bits: a 256 KiB cache.
  MachineConfig config;
  EXPECT_EQ(error_of<ConfigError>([&] { config.set("l2.size_bytes", "4295229440", "--set"); }),
            "--set: l2.size_bytes: expected an unsigned integer in [4096, 268435456], got '4295229440'");
  config.set("l2.size_bytes", "268435456", "--set");
  EXPECT_EQ(config.u("l2.size_bytes"), 268435456u);
}

TEST(ConfigHostile, LineAndSimdWidthsArePowersOfTwo) {
  MachineConfig config;
  EXPECT_EQ(error_of<ConfigError>([&] { config.set("l1.line_bytes", "96", "--set"); }),
            "--set: l1.line_bytes: expected a power of two in [32, 1024], got '96'");
  EXPECT_EQ(error_of<ConfigError>([&] { config.set("core.simd_width", "48", "--set"); }),
            "--set: core.simd_width: expected a power of two in [8, 64], got '48'");
  EXPECT_EQ(error_of<ConfigError>([&] { config.set("core.simd_width", "4", "--set"); }),
            "--set: core.simd_width: expected a power of two in [8, 64], got '4'");
  config.set("l2.line_bytes", "256", "--set");
  EXPECT_EQ(config.u("l2.line_bytes"), 256u);
}

TEST(ConfigHostile, EveryUnsignedMaximumOfTheSchemaFitsThirtyTwoBitsOrIsSixtyFourBitsWide) {
  // Components hold unsigned parameters in 32 bits except these, which gpu_params() carries in 64.
  const std::set<std::string> wide = {"compaction.seed", "l1.pollution_seed", "run.watchdog_cycles",
                                      "run.max_cycles"};
  for (const ParamSpec& spec : schema()) {
    if (spec.kind != ParamSpec::Kind::unsigned_int || wide.count(spec.path)) continue;
    EXPECT_LE(spec.max, double(UINT32_MAX)) << spec.path;
  }
}

TEST(ConfigHostile, UnitRefusalsAreBlamedOnTheConfigurationUnlessTheRtlRefused) {
  const std::string origin = "defaults with --set core.simd_width=48";
  // A C++ unit model refusing a width is the configuration's fault, with or without --rtl.
  EXPECT_EQ(attribute_unit_refusal("SIMD width must be a power of two in [8, 64], got 48", false, origin),
            origin + ": SIMD width must be a power of two in [8, 64], got 48");
  EXPECT_EQ(
      attribute_unit_refusal("coalescer line size must be a power of two of at least 32 bytes", true, origin),
      origin + ": coalescer line size must be a power of two of at least 32 bytes");
  // What the RTL twins refuse is --rtl's, and messages that already say so stay as they are.
  EXPECT_EQ(
      attribute_unit_refusal("the RTL compactor holds 32 warps; a CTA of kernel k has 64", true, origin),
      "--rtl: the RTL compactor holds 32 warps; a CTA of kernel k has 64");
  EXPECT_EQ(attribute_unit_refusal("--rtl: the Verilated twins exist for SIMD widths 8, 16, 32 and 64", true,
                                   origin),
            "--rtl: the Verilated twins exist for SIMD widths 8, 16, 32 and 64");
  EXPECT_EQ(attribute_unit_refusal("the RTL compactor holds 32 warps", false, origin),
            origin + ": the RTL compactor holds 32 warps");
}

// wpu.width and wpu.depth (and the fallback pair) each pass their own range; their product, the thread
// contexts of a WPU, is at most 64. The file's checks ran before the overrides, so the product is checked
// again when the timing model reads the parameters (hw::wpu_params).
TEST(ConfigHostile, WpuContextProductIsCheckedAfterOverrides) {
  const std::string file = std::string(SIMTLM_SOURCE_DIR) + "/configs/mv5-wpu.yaml";
  MachineConfig config = MachineConfig::load(file);
  // The error of reading the WPU's parameters after `--set key=value`, or "(no error)".
  auto after_set = [&](const std::string& key, const std::string& value) -> std::string {
    config.set(key, value, "--set");
    try {
      hw::wpu_params(config);
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "(no error)";
  };
  EXPECT_EQ(after_set("wpu.depth", "64"), file +
                                              " with --set wpu.depth=64: wpu.width x wpu.depth is at most 64 "
                                              "thread contexts per WPU (got 32 x 64 = 2048)");
  EXPECT_EQ(after_set("wpu.width", "1"), "(no error)") << "1 x 64: at the limit";
  EXPECT_EQ(
      after_set("wpu.fallback_depth", "64"),
      file +
          " with --set wpu.depth=64, --set wpu.width=1, --set wpu.fallback_depth=64: wpu.fallback_width "
          "x wpu.fallback_depth is at most 64 thread contexts (got 8 x 64 = 512)");
  EXPECT_EQ(after_set("divergence.unit", "warp_stacks"), "(no error)") << "outside task mode no WPU is built";
}

}  // namespace
}  // namespace simtlm::config
