// The application-style kernels of testbenches/apps/ on the timing model: each whole launch sequence runs
// in one SystemC simulation (in a forked child) and must leave exactly the functional run's buffers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <tuple>

#include "models/launch/sequence.hpp"
#include "testbenches/timing/timing_fixture.hpp"

namespace simtlm::timing_test {
namespace {

fs::path app(const std::string& name) {
  return source_path("testbenches/apps/" + name + "/" + name + ".yaml");
}

std::map<std::string, std::string> functional_sha256(const fs::path& file) {
  launch::SequenceSession session(launch::load_launch(file), session_options());
  return sha256_of(session.run().buffers);
}

class TimingApps : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(TimingApps, OutputsEqualFunctional) {
  const auto& [name, config] = GetParam();
  const fs::path file = app(name);
  const sim::ChildResult r = run_timing_child(launch::load_launch(file), machine(config));
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_TRUE(r.failures.empty()) << failures_text(r);
  EXPECT_EQ(r.sha256, functional_sha256(file));
  // A launch sequence's document (its "launches" and totals): read as written.
  const nlohmann::json& s = r.stats_json;
  EXPECT_EQ(s["launch_count"].get<size_t>(), s["launches"].size());
  EXPECT_GT(s["cycles"].get<uint64_t>(), 0u);
  RecordProperty("cycles", std::to_string(s["cycles"].get<uint64_t>()));
  RecordProperty("warp_instructions", std::to_string(s["warp_instructions"].get<uint64_t>()));
}

INSTANTIATE_TEST_SUITE_P(Apps, TimingApps,
                         ::testing::Combine(::testing::Values("hotspot", "pathfinder", "matrix_mul",
                                                              "tile_reduce", "spmv_histo", "host_interface",
                                                              "atomic_locks"),
                                            ::testing::Values("default.yaml", "fermi-slp.yaml")),
                         [](const auto& info) {
                           std::string config = std::get<1>(info.param);
                           config = config.substr(0, config.find('.'));
                           for (char& c : config)
                             if (c == '-') c = '_';
                           return std::get<0>(info.param) + "_" + config;
                         });

// Cooperative launches (grid_sync.yaml, testbenches/apps/grid_sync/grid_sync.cu) under per-warp stacks, TBC
// and CAPRI: grid_clock's CTA 0 works 2000 iterations before the grid barrier; on the timing model every
// CTA's clock after the barrier is later than CTA 0's before it, and the barrier costs cycles (the atomic
// and the polling loads through the memory system).
TEST(TimingCooperative, NoCtaLeavesTheGridBarrierBeforeTheLastArrives) {
  const std::pair<const char*, const char*> machines[] = {
      {"default.yaml", "warp_stacks"}, {"fermi-slp.yaml", "tbc"}, {"fermi-slp.yaml", "capri"}};
  for (const auto& [config, unit] : machines) {
    sim::ChildReport extra;
    extra.buffers = true;
    const sim::ChildResult r = sim::run_timing_child(launch::load_launch(app("grid_sync")), session_options(),
                                                     machine(config, {{"divergence.unit", unit}}), {}, extra);
    ASSERT_TRUE(r.ok()) << r.error;
    // The polls are coherent loads (ld.acquire.gpu): the L1s pass them to the L2.
    EXPECT_GT(r.stats_json["launches"][1]["l1"]["bypasses"].get<uint64_t>(), 0u) << config << " " << unit;
    // The outputs are the functional run's; the clocks are the timing model's own.
    const std::map<std::string, std::string> functional = functional_sha256(app("grid_sync"));
    for (const char* buffer : {"out", "scratch", "partial", "sink"})
      EXPECT_EQ(r.sha256.at(buffer), functional.at(buffer)) << buffer << " on " << config << " " << unit;
    std::vector<int64_t> before(8), after(8);
    ASSERT_EQ(r.buffers.at("before").size(), 64u);
    std::memcpy(before.data(), r.buffers.at("before").data(), 64);
    std::memcpy(after.data(), r.buffers.at("after").data(), 64);
    // CTA 0 arrives last, and every CTA leaves after it arrived, some cycles later (the atomic's round trip).
    EXPECT_EQ(*std::max_element(before.begin(), before.end()), before[0]) << config << " " << unit;
    EXPECT_GT(*std::min_element(after.begin(), after.end()), before[0] + 20) << config << " " << unit;
  }
}

// A grid larger than the machine holds at once is refused before any CTA runs, in the timing model itself
// (a library caller that sets no SessionOptions::cooperative_limit), naming the binding limit.
TEST(TimingCooperative, GridTheMachineCannotHoldIsRefused) {
  const sim::ChildResult r = run_timing_child(launch::load_launch(app("grid_sync")),
                                              machine("default.yaml", {{"gpu.max_ctas_per_sm", "3"}}));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(
      r.error.find("a cooperative launch of 8 CTAs cannot be resident at once: the machine holds 6 CTAs "
                   "of kernel _Z11grid_phasesPKiPiS1_S1_ii (3 per SM, bound by gpu.max_ctas_per_sm, "
                   "times 2 SMs)"),
      std::string::npos)
      << r.error;
  // Task mode: mandelbrot, whose threads are independent tasks, launched cooperatively (a kernel with
  // grid.sync() is refused for its CTA barrier first).
  const sim::ChildResult task = run_timing_child(
      launch::load_launch(workload_launch("mandelbrot"), {"cooperative=true", "grid=[4, 4, 1]"}),
      machine("mv5-wpu.yaml"));
  ASSERT_FALSE(task.ok());
  EXPECT_NE(task.error.find("a cooperative launch needs every CTA of the grid resident as a CTA, and "
                            "warp_slices runs the grid's threads as tasks"),
            std::string::npos)
      << task.error;
}

// A lock every lane spins on (testbenches/ptx/spin_lock.cu) livelocks on a reconvergence stack. It ran to the
// instruction budget (the file sets 2e7) before the timing model's livelock watch (hw/sc/gpu_livelock.cpp),
// which stops it within a few checks as the functional runner does (Livelock.*); under TBC, ideal
// compaction, CAPRI and the token discipline: TimingLivelock.*.
TEST(TimingAppsHostile, SpinLockOfEveryLaneIsReportedAsALivelock) {
  const sim::ChildResult r = run_timing_child(
      launch::load_launch(source_path("testbenches/apps/hostile/naive_lock.yaml")), machine(""));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error.find("livelock in kernel _Z10naive_lockPiS_"), std::string::npos) << r.error;
}

// Under the two-level scheduler an active set full of warps waiting at hotspot's barrier starved the ready
// warps outside it until the watchdog stopped the run (no instruction issued for 1000000 cycles).
TEST(TimingAppsHostile, TwoLevelSchedulerRunsBarrierHeavyCtas) {
  const fs::path file = app("hotspot");
  const sim::ChildResult r =
      run_timing_child(launch::load_launch(file), machine("default.yaml", {{"core.scheduler", "two_level"}}));
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.sha256, functional_sha256(file));
}

// A combination made invalid by an override names the override, not only the file.
TEST(TimingAppsHostile, BadOverrideCombinationNamesTheOverride) {
  const sim::ChildResult r =
      run_timing_child(launch::load_launch(app("tile_reduce")), machine("default.yaml", {{"l2.banks", "3"}}));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error.find("configs/default.yaml with override l2.banks=3: l2.size_bytes / l2.banks must be a "
                         "multiple of l2.line_bytes x l2.assoc"),
            std::string::npos)
      << r.error;
}

}  // namespace
}  // namespace simtlm::timing_test
