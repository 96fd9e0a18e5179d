// The memory components read their own prefixes of a machine configuration (models/mem/mem_params.hpp):
// every field the timing model received before the readers moved, and the checks' messages.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "models/config/config_section.hpp"
#include "models/mem/mem_params.hpp"
#include "testbenches/systemc/config_error.hpp"

namespace simtlm::mem {
namespace {

using config::ConfigSection;
using config::MachineConfig;
const sc_core::sc_time kClock(1429, sc_core::SC_PS);

using test_support::config_error_of;

TEST(MemParams, DefaultsReachEveryComponent) {
  const MachineConfig config;
  const MemoryParams p = memory_params(config, 3, kClock);
  EXPECT_EQ(p.sms, 3u);
  EXPECT_TRUE(p.l1_enabled);
  EXPECT_EQ(p.l1_disabled_fraction, 0.0);
  EXPECT_EQ(p.l1.size_bytes, 32768u);
  EXPECT_EQ(p.l1.assoc, 8u);
  EXPECT_EQ(p.l1.line_bytes, 128u);
  EXPECT_EQ(p.l1.sector_bytes, 32u);
  EXPECT_EQ(p.l1.banks, 4u);
  EXPECT_EQ(p.l1.hit_latency, 20u);
  EXPECT_EQ(p.l1.miss_latency, 1u);
  EXPECT_EQ(p.l1.mshrs, 32u);
  EXPECT_EQ(p.l1.mshr_max_merge, 8u);
  EXPECT_EQ(p.l1.write_buffer, 16u);
  EXPECT_EQ(p.l1.write_policy, WritePolicy::kWriteThroughNoAllocate);
  EXPECT_EQ(p.l1.atomic_cycles, 0u);
  EXPECT_EQ(p.l1.clock, kClock);
  EXPECT_EQ(p.l2_banks, 2u);
  EXPECT_EQ(p.l2.size_bytes, 131072u);  // 256 KiB over two banks
  EXPECT_EQ(p.l2.assoc, 16u);
  EXPECT_EQ(p.l2.sector_bytes, 32u);
  EXPECT_EQ(p.l2.hit_latency, 100u);
  EXPECT_EQ(p.l2.miss_latency, 4u);
  EXPECT_EQ(p.l2.mshrs, 64u);
  EXPECT_EQ(p.l2.atomic_cycles, 9u);
  EXPECT_EQ(p.l2.slices, 2u);
  EXPECT_EQ(p.l2.write_policy, WritePolicy::kWriteBackAllocate);
  EXPECT_EQ(p.xbar.in_ports, 3u);
  EXPECT_EQ(p.xbar.out_ports, 2u);
  EXPECT_EQ(p.xbar.interleave_bytes, 128u);
  EXPECT_EQ(p.xbar.bytes_per_cycle, 32u);
  EXPECT_EQ(p.xbar.latency, 8u);
  EXPECT_EQ(p.xbar.bank_queue, 8u);
  EXPECT_EQ(p.dram.channels, 2u);
  EXPECT_EQ(p.dram.ports, 1u);
  EXPECT_EQ(p.dram.channel_interleave_bytes, 128u);
  EXPECT_EQ(p.dram.clock_ratio, 924.0 / 700.0);  // gddr5
  EXPECT_EQ(p.dram.tCL, 12u);
  EXPECT_EQ(p.dram.banks, 16u);
  EXPECT_EQ(p.dram.row_bytes, 2048u);
  EXPECT_EQ(p.dram.queue_depth, 32u);
  EXPECT_FALSE(p.dram.in_order);
  EXPECT_FALSE(p.dram.fixed_latency_mode);
  EXPECT_EQ(p.dram.clock, kClock);
  EXPECT_EQ(p.first_line_bytes(), 128u);
}

TEST(MemParams, OverridesReachTheirComponent) {
  MachineConfig config;
  for (const auto& [key, value] :
       std::vector<std::pair<std::string, std::string>>{{"l1.enabled", "false"},
                                                        {"l1.write_policy", "write_back"},
                                                        {"l2.line_bytes", "256"},
                                                        {"l2.banks", "4"},
                                                        {"dram.channels", "2"},
                                                        {"dram.preset", "none"},
                                                        {"dram.tCL", "7"},
                                                        {"dram.tRAS", "30"},
                                                        {"dram.clock_ratio", "0.5"},
                                                        {"dram.scheduler", "fcfs"},
                                                        {"dram.mode", "fixed"},
                                                        {"dram.fixed_latency", "123"},
                                                        {"interconnect.latency", "5"}})
    config.set(key, value, "--set");
  const MemoryParams p = memory_params(config, 1, kClock);
  EXPECT_FALSE(p.l1_enabled);
  EXPECT_EQ(p.l1.write_policy, WritePolicy::kWriteBackAllocate);
  EXPECT_EQ(p.first_line_bytes(), 256u);  // no L1: the L2 line
  EXPECT_EQ(p.l2.size_bytes, 65536u);
  EXPECT_EQ(p.l2.slices, 4u);
  EXPECT_EQ(p.xbar.out_ports, 4u);
  EXPECT_EQ(p.xbar.interleave_bytes, 256u);
  EXPECT_EQ(p.xbar.latency, 5u);
  EXPECT_EQ(p.dram.ports, 2u);
  EXPECT_EQ(p.dram.channel_interleave_bytes, 256u);
  EXPECT_EQ(p.dram.tCL, 7u);
  EXPECT_EQ(p.dram.tRAS, 30u);
  EXPECT_EQ(p.dram.clock_ratio, 0.5);
  EXPECT_TRUE(p.dram.in_order);
  EXPECT_TRUE(p.dram.fixed_latency_mode);
  EXPECT_EQ(p.dram.fixed_latency, 123u);
}

TEST(MemParams, EachReaderChecksItsComponent) {
  MachineConfig config;
  config.set("l1.size_bytes", "3072", "--set");
  config.set("l1.assoc", "5", "--set");
  EXPECT_EQ(
      config_error_of([&] { l1_cache_params(ConfigSection(config, "l1"), kClock); }),
      "defaults with --set l1.size_bytes=3072, --set l1.assoc=5: l1.assoc: does not divide the line count");
  MachineConfig banks;
  banks.set("l2.banks", "3", "--set");
  EXPECT_EQ(config_error_of([&] { l2_bank_params(ConfigSection(banks, "l2"), kClock); }),
            "defaults with --set l2.banks=3: l2.size_bytes / l2.banks must be a multiple of l2.line_bytes x "
            "l2.assoc");
  MachineConfig lines;
  lines.set("l1.line_bytes", "256", "--set");
  EXPECT_EQ(
      config_error_of([&] { memory_params(lines, 1, kClock); }),
      "defaults with --set l1.line_bytes=256: l1.line_bytes (256) must not exceed l2.line_bytes (128): an "
      "L1 fill would span two L2 lines");
}

// Under the GDDR5 preset a timing the user sets would be ignored: refused instead, naming the key (issue 28's
// sensitivity sweep set dram.clock_ratio under it and measured nothing).
TEST(MemParams, AGddr5PresetRefusesTheTimingsItFixes) {
  MachineConfig ratio;
  ratio.set("dram.clock_ratio", "2", "--set");
  EXPECT_EQ(
      config_error_of([&] { memory_params(ratio, 1, kClock); }),
      "defaults with --set dram.clock_ratio=2: dram.clock_ratio has no effect under dram.preset: gddr5, "
      "which fixes the DRAM timings; set dram.preset: none to give them yourself");
  MachineConfig cas;
  cas.set("dram.tCL", "20", "--set");
  EXPECT_NE(config_error_of([&] { memory_params(cas, 1, kClock); }).find("dram.tCL has no effect"),
            std::string::npos);
  MachineConfig own;
  own.set("dram.preset", "none", "--set");
  own.set("dram.clock_ratio", "2", "--set");
  EXPECT_EQ(memory_params(own, 1, kClock).dram.clock_ratio, 2.0);
}

}  // namespace
}  // namespace simtlm::mem
