// gpu_params() is a composition: the GPU's own keys, sm_params() and mem::memory_params(), each reading its
// prefix. Every group of keys reaches its struct, and the checks keep the messages they always had.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "hw/sc/timing_params.hpp"
#include "testbenches/systemc/config_error.hpp"

namespace simtlm::hw {
namespace {

config::MachineConfig with(const std::vector<std::pair<std::string, std::string>>& sets) {
  config::MachineConfig config;
  for (const auto& [key, value] : sets) config.set(key, value, "--set");
  return config;
}

using test_support::config_error_of;

TEST(GpuParams, ComposesEachComponentsReader) {
  const GpuParams g = gpu_params(with({{"gpu.sms", "4"},
                                       {"gpu.clock_mhz", "700"},
                                       {"gpu.max_warps_per_sm", "48"},
                                       {"core.simd_width", "16"},
                                       {"core.scheduler", "gto"},
                                       {"core.pipelines.sfu.latency", "30"},
                                       {"stack.preset", "maxwell"},
                                       {"divergence.unit", "capri"},
                                       {"compaction.permutation", "xor_half"},
                                       {"compaction.seed", "5"},
                                       {"lsu.segment_bytes", "64"},
                                       {"lsu.max_loads", "9"},
                                       {"l1.enabled", "false"},
                                       {"l2.line_bytes", "256"},
                                       {"run.watchdog_cycles", "5000"},
                                       {"run.max_cycles", "0"}}));
  const sc_core::sc_time clock(1429, sc_core::SC_PS);  // 1e6 / 700 MHz, rounded
  EXPECT_EQ(g.sms, 4u);
  EXPECT_EQ(g.clock_mhz, 700.0);
  EXPECT_EQ(g.sm.clock, clock);
  EXPECT_EQ(g.sm.max_warps, 48u);
  EXPECT_EQ(g.sm.simd_width, 16u);
  EXPECT_EQ(g.sm.scheduler, SchedulerPolicy::greedy_then_oldest);
  EXPECT_EQ(g.sm.pipes[static_cast<size_t>(OpClass::sfu)].latency, 30u);
  EXPECT_EQ(g.sm.pipes[static_cast<size_t>(OpClass::sfu)].initiation_interval, 8u);
  EXPECT_EQ(g.sm.divergence.stack.timing.pop, 26u);  // maxwell
  EXPECT_EQ(g.sm.divergence.stack.timing.spill, 88u);
  EXPECT_TRUE(g.sm.divergence.stack_timing_measured);
  EXPECT_EQ(g.sm.divergence.mechanism(), Compaction::capri);
  EXPECT_EQ(g.sm.divergence.permutation, NamedPermutation::kXorHalf);
  EXPECT_EQ(g.sm.divergence.permutation_seed, 5u);
  EXPECT_EQ(g.sm.segment_bytes, 64u);
  EXPECT_EQ(g.sm.lsu.loads, 9u);
  EXPECT_EQ(g.sm.lsu.stores, 64u);
  EXPECT_EQ(g.sm.line_bytes, 256u);  // no L1: requests go straight to the 256-byte L2 lines
  EXPECT_EQ(g.memory.sms, 4u);
  EXPECT_EQ(g.memory.xbar.in_ports, 4u);
  EXPECT_EQ(g.memory.xbar.interleave_bytes, 256u);
  EXPECT_EQ(g.memory.l2.clock, clock);
  EXPECT_EQ(g.memory.dram.clock, clock);
  EXPECT_FALSE(g.memory.l1_enabled);
  EXPECT_EQ(g.watchdog_cycles, 5000u);
  EXPECT_EQ(g.max_cycles, 0u);
}

TEST(GpuParams, DefaultsAndSlpDisable) {
  const GpuParams g =
      gpu_params(with({{"compaction.permutation", "balanced"}, {"compaction.slp_disable", "true"}}));
  EXPECT_EQ(g.sm.divergence.permutation,
            NamedPermutation::kIdentity);  // the disable bit wins over the permutation
  EXPECT_EQ(g.sm.divergence.stack.discipline, Discipline::postdom);
  EXPECT_FALSE(g.sm.divergence.stack_timing_measured);
  EXPECT_EQ(g.sm.line_bytes, 128u);  // the L1's
  EXPECT_EQ(g.sm.clock, sc_core::sc_time(1000, sc_core::SC_PS));
  EXPECT_EQ(g.watchdog_cycles, 1'000'000u);
  EXPECT_EQ(g.max_cycles, 0u);  // no limit: endless kernels are caught by progress
}

TEST(GpuParams, ComponentChecksKeepTheirMessages) {
  EXPECT_EQ(config_error_of([] {
              gpu_params(with({{"stack.entries", "4"}, {"stack.spill_chunk", "8"}}));
            }),
            "defaults with --set stack.entries=4, --set stack.spill_chunk=8: stack.spill_chunk exceeds "
            "stack.entries");
  EXPECT_EQ(config_error_of([] {
              gpu_params(with({{"l2.banks", "3"}}));
            }),
            "defaults with --set l2.banks=3: l2.size_bytes / l2.banks must be a multiple of l2.line_bytes x "
            "l2.assoc");
  EXPECT_EQ(
      config_error_of([] {
        gpu_params(with({{"dram.channels", "4"}}));
      }),
      "defaults with --set dram.channels=4: l2.banks (2) must be a multiple of dram.channels (4): each L2 "
      "bank talks to one channel");
}

}  // namespace
}  // namespace simtlm::hw
