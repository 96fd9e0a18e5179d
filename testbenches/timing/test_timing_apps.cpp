// The application-style kernels of testbenches/apps/ on the timing model: each whole launch sequence runs
// in one SystemC simulation (in a forked child) and must leave exactly the functional run's buffers.
#include <gtest/gtest.h>

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

// The timing model has no livelock watch yet: a lock every lane spins on (testbenches/ptx/spin_lock.cu) runs
// to the instruction budget (2e10 by default: about 8 minutes; the file sets 2e7). The functional runner
// stops it at once (Livelock.*). The fix belongs in hw/sc/sm.cpp, being split by another developer: when
// every resident warp of an SM has issued only inside loops since the last check, compare the SM's CTA
// states (registers, stacks, shared memory) and the global values written between two checks, as
// models/ptx/livelock.* does per scheduling round.
TEST(TimingAppsHostile, DISABLED_SpinLockOfEveryLaneIsReportedAsALivelock) {
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
