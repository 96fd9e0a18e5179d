// Parameters owned by their components: each reads its own prefix (ConfigSection), checks its combinations
// once with the messages the timing model has always given, and contributes its rows to the schema in
// reference order. The memory components' readers need SystemC and are checked in
// testbenches/systemc/test_mem_params.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "hw/gpu_schema.hpp"
#include "hw/lsu_limits.hpp"
#include "hw/sm_schema.hpp"
#include "hw/stack_params.hpp"
#include "hw/wpu_schema.hpp"
#include "models/config/config_section.hpp"
#include "models/mem/memory_schema.hpp"

namespace simtlm::config {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

std::vector<std::string> paths(const ParamRows& rows) {
  std::vector<std::string> out;
  for (const ParamSpec& row : rows) out.push_back(row.path);
  return out;
}

TEST(ConfigParams, SectionReadsItsPrefixAndRefusesToCutToThirtyTwoBits) {
  MachineConfig config;
  config.set("l1.assoc", "4", "--set");
  const ConfigSection l1(config, "l1");
  EXPECT_EQ(l1.path("assoc"), "l1.assoc");
  EXPECT_EQ(l1.u32("assoc"), 4u);
  EXPECT_EQ(l1.str("write_policy"), "write_through");
  EXPECT_TRUE(l1.flag("enabled"));
  EXPECT_EQ(l1.section("l2").u32("assoc"), 16u);
  config.set("compaction.seed", "4294967296", "--set");
  EXPECT_EQ(ConfigSection(config, "compaction").u64("seed"), 4294967296u);
  EXPECT_EQ(
      error_of([&] { ConfigSection(config, "compaction").u32("seed"); }),
      "defaults with --set l1.assoc=4, --set compaction.seed=4294967296: compaction.seed: 4294967296 does "
      "not fit in 32 bits");
  EXPECT_EQ(error_of([&] { l1.require(false, "l1.banks: too many"); }),
            "defaults with --set l1.assoc=4, --set compaction.seed=4294967296: l1.banks: too many");
}

TEST(ConfigParams, L1CacheChecksInOrder) {
  auto l1_error = [](std::vector<std::pair<std::string, std::string>> sets) {
    MachineConfig config;
    for (const auto& [key, value] : sets) config.set(key, value, "f");
    return error_of([&] { mem::check_l1_cache(ConfigSection(config, "l1")); });
  };
  EXPECT_EQ(l1_error({}), "(no error)");
  EXPECT_EQ(
      l1_error({{"l1.line_bytes", "32"}, {"l1.sector_bytes", "64"}}),
      "defaults with f l1.line_bytes=32, f l1.sector_bytes=64: l1.sector_bytes: larger than l1.line_bytes");
  // 3072 B of 128-byte lines is 24 lines; 5 ways do not divide them.
  EXPECT_EQ(l1_error({{"l1.size_bytes", "3072"}, {"l1.assoc", "5"}}),
            "defaults with f l1.size_bytes=3072, f l1.assoc=5: l1.assoc: does not divide the line count");
  // One 1024-byte line, one way, and half a line left over.
  EXPECT_EQ(l1_error({{"l1.size_bytes", "1536"}, {"l1.line_bytes", "1024"}, {"l1.assoc", "1"}}),
            "defaults with f l1.size_bytes=1536, f l1.line_bytes=1024, f l1.assoc=1: l1.size_bytes must be a "
            "multiple of l1.line_bytes x l1.assoc");
}

TEST(ConfigParams, L2BankAndMemoryLinkChecks) {
  MachineConfig config;
  EXPECT_EQ(error_of([&] { mem::check_memory(config); }), "(no error)");
  config.set("l2.banks", "3", "--set");
  EXPECT_EQ(error_of([&] { mem::check_l2_cache(ConfigSection(config, "l2")); }),
            "defaults with --set l2.banks=3: l2.size_bytes / l2.banks must be a multiple of l2.line_bytes x "
            "l2.assoc");
  MachineConfig lines;
  lines.set("l1.line_bytes", "256", "--set");
  EXPECT_EQ(
      error_of([&] { mem::check_memory_links(lines); }),
      "defaults with --set l1.line_bytes=256: l1.line_bytes (256) must not exceed l2.line_bytes (128): an "
      "L1 fill would span two L2 lines");
  lines.set("l1.enabled", "false", "--set");
  EXPECT_EQ(error_of([&] { mem::check_memory_links(lines); }), "(no error)");  // no L1 fills at all
  MachineConfig channels;
  channels.set("dram.channels", "3", "--set");
  EXPECT_EQ(
      error_of([&] { mem::check_memory(channels); }),
      "defaults with --set dram.channels=3: l2.banks (2) must be a multiple of dram.channels (3): each L2 "
      "bank talks to one channel");
}

TEST(ConfigParams, StackParamsReadPresetOverridesAndCheck) {
  MachineConfig config;
  config.set("stack.preset", "kepler", "--set");
  config.set("stack.cycles.pop", "7", "--set");
  config.set("stack.discipline", "postdom", "--set");
  config.set("stack.entries", "8", "--set");
  config.set("stack.spill_chunk", "2", "--set");
  const hw::StackParams stack = hw::stack_params(ConfigSection(config, "stack"));
  EXPECT_EQ(stack.discipline, hw::Discipline::postdom);
  EXPECT_EQ(stack.onchip_entries, 8u);
  EXPECT_EQ(stack.chunk_entries, 2u);
  EXPECT_EQ(stack.timing.divergent_branch, 0u);
  EXPECT_EQ(stack.timing.pop, 7u);  // kepler's 32, overridden
  EXPECT_EQ(stack.timing.spill, 40u);
  EXPECT_EQ(stack.timing.fill, 44u);
  EXPECT_EQ(stack.spill_base, 0x7d00'0000'0000ull);
  EXPECT_EQ(stack.region_bytes, 1ull << 20);
  config.set("stack.spill_chunk", "9", "--set");
  EXPECT_EQ(
      error_of([&] { hw::stack_params(ConfigSection(config, "stack")); }),
      "defaults with --set stack.preset=kepler, --set stack.cycles.pop=7, --set stack.discipline=postdom, "
      "--set stack.entries=8, --set stack.spill_chunk=2, --set stack.spill_chunk=9: stack.spill_chunk "
      "exceeds stack.entries");
}

TEST(ConfigParams, LsuLimitsReadTheirThreeKeys) {
  MachineConfig config;
  const hw::LsuLimits defaults = hw::lsu_limits(ConfigSection(config, "lsu"));
  EXPECT_EQ(defaults.loads, 256u);
  EXPECT_EQ(defaults.stores, 64u);
  EXPECT_EQ(defaults.atomics, 32u);
  config.set("lsu.max_loads", "3", "--set");
  config.set("lsu.store_buffer", "5", "--set");
  config.set("lsu.atomic_queue", "7", "--set");
  const hw::LsuLimits set = hw::lsu_limits(ConfigSection(config, "lsu"));
  EXPECT_EQ(set.loads, 3u);
  EXPECT_EQ(set.stores, 5u);
  EXPECT_EQ(set.atomics, 7u);
}

TEST(ConfigParams, GpuClockPeriodInPicoseconds) {
  MachineConfig config;
  config.set("gpu.clock_mhz", "700", "--set");
  EXPECT_EQ(hw::clock_period_ps(ConfigSection(config, "gpu")), 1429u);  // 1e6 / 700 = 1428.57
  EXPECT_EQ(error_of([&] { hw::check_gpu(config); }), "(no error)");
}

TEST(ConfigParams, SchemaIsEveryComponentsRowsInReferenceOrder) {
  std::vector<std::string> composed;
  for (const ParamRows& part :
       {hw::gpu_rows(), hw::sm_rows(), hw::wpu_rows(), mem::memory_rows(), hw::run_rows()}) {
    const std::vector<std::string> p = paths(part);
    composed.insert(composed.end(), p.begin(), p.end());
  }
  EXPECT_EQ(paths(schema()), composed);
  // Each section's rows are contiguous, sections in the reference's order.
  std::vector<std::string> sections;
  for (const std::string& path : composed) {
    const std::string section = path.substr(0, path.find('.'));
    if (sections.empty() || sections.back() != section) sections.push_back(section);
  }
  EXPECT_EQ(sections, (std::vector<std::string>{"gpu", "core", "stack", "divergence", "compaction", "lsu",
                                                "wpu", "l1", "interconnect", "l2", "dram", "run"}));
  EXPECT_EQ(composed.size(), 111u);  // run.tlm_check since issue 31
  // A component's rows are its own: the stack's and the LSU limits' sit inside the SM's.
  const std::vector<std::string> sm = paths(hw::sm_rows());
  for (const std::string& path : paths(hw::stack_rows()))
    EXPECT_NE(std::find(sm.begin(), sm.end(), path), sm.end()) << path;
  for (const std::string& path : paths(hw::lsu_limit_rows()))
    EXPECT_NE(std::find(sm.begin(), sm.end(), path), sm.end()) << path;
}

TEST(ConfigParams, LoadRunsEveryComponentsChecks) {
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / "simtlm_test_component_checks.yaml";
  std::ofstream(file) << "stack:\n  entries: 4\n  spill_chunk: 8\n";
  EXPECT_EQ(error_of([&] { MachineConfig::load(file); }),
            file.string() + ": stack.spill_chunk exceeds stack.entries");
  std::ofstream(file) << "dram:\n  channels: 4\nl2:\n  banks: 2\n";
  EXPECT_EQ(error_of([&] { MachineConfig::load(file); }),
            file.string() +
                ": l2.banks (2) must be a multiple of dram.channels (4): each L2 bank talks to one "
                "channel");
  std::ofstream(file) << "l1:\n  sector_bytes: 256\n";
  EXPECT_EQ(error_of([&] { MachineConfig::load(file); }),
            file.string() + ": l1.sector_bytes: larger than l1.line_bytes");
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace simtlm::config
