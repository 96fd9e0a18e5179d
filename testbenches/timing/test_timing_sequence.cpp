// Launch sequences on the timing model: one SystemC simulation runs kernel after kernel with the caches
// and DRAM carried over (sim/timing_sequence.*). Each run happens in a forked child: SystemC elaborates
// once per process.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>

#include "models/config/machine_config.hpp"
#include "models/launch/sequence.hpp"
#include "models/launch/sha256.hpp"
#include "sim/timing_child.hpp"
#include "workloads/reference/reference.hpp"

namespace simtlm {
namespace {

namespace fs = std::filesystem;

// sim::run_timing_child runs a sequence file in one simulation of a forked child. A sequence's statistics
// (its "launches" and their totals) are read as written: r.stats_json.
sim::ChildResult run_sequence_in_child(const fs::path& file, const config::MachineConfig& machine) {
  launch::SessionOptions options;
  options.find_reference = workloads::find_reference;
  return sim::run_timing_child(launch::load_launch(file), options, machine);
}

std::map<std::string, std::string> functional_sha256(const fs::path& file) {
  launch::SessionOptions options;
  options.find_reference = workloads::find_reference;
  launch::SequenceSession session(launch::load_launch(file), options);
  std::map<std::string, std::string> sha;
  for (const auto& [name, bytes] : session.run().buffers) sha[name] = launch::sha256_hex(bytes);
  return sha;
}

TEST(TimingSequence, SecondLaunchHitsInL2LinesTheFirstBroughtIn) {
  const fs::path file = fs::path(SIMTLM_SOURCE_DIR) / "testbenches/launch/seq_l2_reuse.yaml";
  config::MachineConfig machine;
  machine.set("l1.enabled", "false");  // every load reaches the L2
  const sim::ChildResult r = run_sequence_in_child(file, machine);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.sha256, functional_sha256(file));  // same values as the functional model
  EXPECT_TRUE(r.failures.empty());
  const nlohmann::json& s = r.stats_json;
  ASSERT_EQ(s["launches"].size(), 2u);
  const nlohmann::json& cold = s["launches"][0];
  const nlohmann::json& warm = s["launches"][1];
  const uint64_t cold_reads = cold["dram"]["reads"].get<uint64_t>();
  const uint64_t warm_reads = warm["dram"]["reads"].get<uint64_t>();
  // 16 KiB of input: the cold launch fetches it from DRAM; the warm one finds it in the L2.
  EXPECT_GE(cold_reads * 128, 16384u) << cold["dram"].dump();
  EXPECT_LT(warm_reads * 4, cold_reads) << warm["dram"].dump();
  EXPECT_GT(warm["l2"]["hits"].get<uint64_t>(), cold["l2"]["hits"].get<uint64_t>());
  // The second launch starts where the first ended (after its write-back); totals add up.
  EXPECT_GE(warm["start_cycle"].get<uint64_t>(), cold["cycles"].get<uint64_t>());
  EXPECT_EQ(s["warp_instructions"].get<uint64_t>(),
            cold["warp_instructions"].get<uint64_t>() + warm["warp_instructions"].get<uint64_t>());
  EXPECT_EQ(s["dram"]["reads"].get<uint64_t>(), cold_reads + warm_reads);
}

TEST(TimingSequence, UntilLoopMatchesTheFunctionalRun) {
  const fs::path file = fs::path(SIMTLM_SOURCE_DIR) / "testbenches/launch/seq_until.yaml";
  const sim::ChildResult r = run_sequence_in_child(file, config::MachineConfig());
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.sha256, functional_sha256(file));
  EXPECT_EQ(r.stats_json["launch_count"], 5);
}

// Nested for loops (a bitonic sort) and a grid read back from device memory between launches: the timing
// run reads what its own kernels left, launch for launch as the functional run.
TEST(TimingSequence, ForLoopsAndGridsReadFromTheDeviceMatchTheFunctionalRun) {
  for (const char* name : {"seq_bitonic.yaml", "seq_device_grid.yaml"}) {
    const fs::path file = fs::path(SIMTLM_SOURCE_DIR) / "testbenches/launch" / name;
    const sim::ChildResult r = run_sequence_in_child(file, config::MachineConfig());
    ASSERT_TRUE(r.ok()) << name << ": " << r.error;
    EXPECT_EQ(r.sha256, functional_sha256(file)) << name;
    launch::SequenceSession session(launch::load_launch(file), {});
    const launch::SessionResult functional = session.run();
    ASSERT_EQ(r.stats_json["launches"].size(), functional.launches.size()) << name;
    for (size_t k = 0; k < functional.launches.size(); ++k)
      EXPECT_EQ(r.stats_json["launches"][k]["grid"], functional.launches[k]["grid"])
          << name << " launch " << k;
  }
}

TEST(TimingSequence, LoopExceedingMaxStopsTheSimulationWithTheLoopsLine) {
  const fs::path file = fs::path(SIMTLM_SOURCE_DIR) / "testbenches/launch/bad_seq_until_max.yaml";
  const sim::ChildResult r = run_sequence_in_child(file, config::MachineConfig());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error.find("bad_seq_until_max.yaml:8: loop: until {buffer: more, element: 0, "
                         "equals: 0} still does not hold after max = 3 iterations"),
            std::string::npos)
      << r.error;
}

TEST(TimingSequence, KernelFaultNamesTheLaunch) {
  const fs::path file = fs::path(SIMTLM_SOURCE_DIR) / "testbenches/launch/seq_fault.yaml";
  const sim::ChildResult r = run_sequence_in_child(file, config::MachineConfig());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error_kind, "kernel");
  EXPECT_EQ(r.error.rfind("launch 1 (kernel _Z4haloPfS_i at line 11, i = 0): out-of-bounds", 0), 0u)
      << r.error;
}

// The suite's sequence workloads give the functional run's outputs and pass their host references.
class TimingSequenceWorkload : public ::testing::TestWithParam<std::string> {};

TEST_P(TimingSequenceWorkload, OutputsEqualFunctional) {
  const fs::path file = fs::path(SIMTLM_SOURCE_DIR) / "workloads" / GetParam() / (GetParam() + ".yaml");
  const sim::ChildResult r = run_sequence_in_child(file, config::MachineConfig());
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_TRUE(r.reference_checked);
  EXPECT_TRUE(r.failures.empty()) << ::testing::PrintToString(r.failures);
  EXPECT_EQ(r.sha256, functional_sha256(file));
  EXPECT_EQ(r.stats_json["launch_count"].get<size_t>(), r.stats_json["launches"].size());
}

INSTANTIATE_TEST_SUITE_P(Suite, TimingSequenceWorkload,
                         ::testing::ValuesIn(workloads::sequence_reference_names()),
                         [](const auto& info) { return info.param; });

// run.max_cycles bounds each kernel, not the sequence: Gaussian elimination's many short kernels finish under
// a limit far below their total, and the same limit below its longest kernel stops that kernel.
TEST(TimingSequence, MaxCyclesBoundsEachKernelNotTheSequence) {
  const fs::path file = fs::path(SIMTLM_SOURCE_DIR) / "workloads/gaussian/gaussian.yaml";
  const sim::ChildResult free_run = run_sequence_in_child(file, config::MachineConfig());
  ASSERT_TRUE(free_run.ok()) << free_run.error;
  uint64_t longest = 0;
  for (const auto& launch : free_run.stats_json["launches"])
    longest = std::max(longest, launch["cycles"].get<uint64_t>());
  const uint64_t total = free_run.stats_json["cycles"].get<uint64_t>();
  const uint64_t limit = longest + 1000;
  ASSERT_LT(limit * 4, total);  // the sequence as a whole is far past the limit

  config::MachineConfig bounded;
  bounded.set("run.max_cycles", std::to_string(limit));
  const sim::ChildResult r = run_sequence_in_child(file, bounded);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.sha256, free_run.sha256);
  EXPECT_EQ(r.stats_json["launch_count"], free_run.stats_json["launch_count"]);
  // Not the exact total: a shorter limit wakes the watchdog more often, and that shifts gaussian by a few
  // hundred cycles (same-time event order; docs/timing-model.md, Errors).

  config::MachineConfig tight;
  tight.set("run.max_cycles", std::to_string(longest / 2));
  const sim::ChildResult stopped = run_sequence_in_child(file, tight);
  ASSERT_FALSE(stopped.ok());
  EXPECT_NE(stopped.error.find(fmt::format("run.max_cycles ({}) reached", longest / 2)), std::string::npos)
      << stopped.error;
}

}  // namespace
}  // namespace simtlm
