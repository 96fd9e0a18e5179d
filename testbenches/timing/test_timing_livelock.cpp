// Long runs and endless runs in the timing model (docs/reliability.md, "Long runs and endless runs"): no
// cycle limit by default, so a correct kernel runs as long as it needs; an endless one is caught by what it
// does: the watchdog when nothing issues, the livelock watch (hw/sc/gpu_livelock.cpp) when the GPU's
// architectural state repeats under every divergence mechanism; a loop that changes values forever is the
// user's bug, bounded by run.max_cycles when the user sets it. Kernels: long_runs.cu, backpressure.cu,
// testbenches/ptx/spin_lock.cu.
#include <fmt/format.h>

#include "testbenches/timing/timing_fixture.hpp"

namespace simtlm::timing_test {
namespace {

// The machines of the livelock tests: per-warp stacks (both disciplines), TBC, ideal compaction and CAPRI.
const std::pair<const char*, const char*> kUnits[] = {
    {"default.yaml", "warp_stacks"}, {"fermi-slp.yaml", "tbc"}, {"fermi-slp.yaml", "ideal"},
    {"fermi-slp.yaml", "capri"},     {"default.yaml", "token"},
};

config::MachineConfig unit_machine(const char* file, const std::string& unit) {
  if (unit == "token") return machine(file, {{"stack.discipline", "token"}});
  return machine(file, {{"divergence.unit", unit}});
}

TEST(TimingLivelock, NoCycleLimitByDefault) {
  EXPECT_EQ(config::MachineConfig().u("run.max_cycles"), 0u);
  EXPECT_EQ(machine("default.yaml").u("run.max_cycles"), 0u);
  EXPECT_EQ(machine("fermi-slp.yaml").u("run.max_cycles"), 0u);
}

// Every lane spins on atomicCAS for one mutex: the lane that won waits at the loop's exit for the others,
// under every mechanism that reconverges. Caught within a few livelock checks (about 100,000 cycles apart),
// naming the kernel, each CTA and warp, and the loop.
TEST(TimingLivelock, SpinLockOfEveryLaneIsALivelockUnderEveryMechanism) {
  for (const auto& [file, unit] : kUnits) {
    const sim::ChildResult r =
        run_timing_child(launch::load_launch(source_path("testbenches/apps/hostile/naive_lock.yaml")),
                         unit_machine(file, unit));
    ASSERT_FALSE(r.ok()) << unit;
    EXPECT_EQ(r.error_kind, "kernel") << unit;
    EXPECT_NE(r.error.find("livelock in kernel _Z10naive_lockPiS_ (0 of 2 CTAs done, 2 still running)"),
              std::string::npos)
        << unit << ": " << r.error;
    EXPECT_NE(r.error.find("CTA (0,0,0) on SM 0: warp 0 spinning in the loop closed at PC "),
              std::string::npos)
        << unit << ": " << r.error;
    EXPECT_NE(r.error.find("spin_lock.cu:5"), std::string::npos) << unit << ": " << r.error;
    EXPECT_NE(r.error.find("CTA (1,0,0) on SM 1:"), std::string::npos) << unit << ": " << r.error;
    const size_t at = r.error.find("): at cycle ");
    ASSERT_NE(at, std::string::npos) << r.error;
    const uint64_t cycle = std::stoull(r.error.substr(at + 12));
    EXPECT_LE(cycle, 2'000'000u) << unit;
  }
}

// A consumer spinning on a flag nobody sets (it only loads): a livelock at the default settings.
TEST(TimingLivelock, FlagNobodySetsIsALivelock) {
  const sim::ChildResult r = run_timing_child(timing_launch("wait_for_flag.yaml"), machine("default.yaml"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error.find("livelock in kernel wait_for_flag"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("warp 1 spinning in the loop closed at PC "), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("backpressure.cu:21"), std::string::npos) << r.error;
}

// A cooperative grid.sync() that one CTA never reaches (it returns early): the others spin on the grid
// barrier with a warp each waiting at the CTA barrier behind it. The functional runner proves it a grid
// livelock (Cooperative.*); the timing model's watch does too.
TEST(TimingLivelock, GridBarrierSomeCtaNeverReachesIsALivelock) {
  const sim::ChildResult r =
      run_timing_child(launch::load_launch(source_path("testbenches/apps/grid_sync/missing_cta.yaml")),
                       machine("default.yaml"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error.find("livelock in kernel _Z16grid_missing_ctaPi (1 of 8 CTAs done, 7 still running)"),
            std::string::npos)
      << r.error;
  EXPECT_NE(r.error.find("warp 1 waiting at barrier 0 at PC "), std::string::npos) << r.error;
}

// A loop that stores a new value every iteration changes state forever: no livelock; run.max_cycles, set
// by the user, stops it, and the error is the runaway report.
TEST(TimingLivelock, StoreLoopOfChangingValuesIsNoLivelockAndMaxCyclesBoundsIt) {
  const sim::ChildResult r = run_timing_child(timing_launch("store_forever.yaml"),
                                              machine("default.yaml", {{"run.max_cycles", "600000"}}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error.find("livelock"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("run.max_cycles (600000) reached before kernel store_forever finished"),
            std::string::npos)
      << r.error;
  EXPECT_NE(r.error.find("Now cycle 600000 (the kernel started at cycle 0):"), std::string::npos) << r.error;
}

// Warps that spin on a flag while another warp computes (registers only) for about 10 livelock checks: the
// state changes at every check, so the kernel finishes with the functional model's outputs.
TEST(TimingLivelock, SpinningWhileAnotherWarpComputesIsNoLivelock) {
  for (const auto& [file, unit] : kUnits) {
    const launch::Launch l = timing_launch("late_flag.yaml");
    const sim::ChildResult r = run_timing_child(l, unit_machine(file, unit));
    ASSERT_TRUE(r.ok()) << unit << ": " << r.error;
    launch::Session session(l, session_options());
    EXPECT_EQ(r.sha256.at("out"), launch::sha256_hex(session.run().buffers.at("out"))) << unit;
    EXPECT_GT(r.stats().integer("cycles"), 500'000u) << unit;
  }
}

// A long correct kernel: 10^6 atomics on one word (125 CTAs x 250 threads x 32), about 9 M cycles, past the
// old default run.max_cycles of 4,000,000, finishes at the default settings.
TEST(TimingLivelock, AtomicFloodPastTheOldCycleLimitFinishesAtTheDefaults) {
  const sim::ChildResult r = run_timing_child(timing_launch("atomic_flood.yaml"), machine("default.yaml"));
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.sha256.at("count"), u32_sha256(1'000'000));
  EXPECT_EQ(r.stats().total("l2").integer("atomic_operations"), 1'000'000u);
  EXPECT_GT(r.stats().integer("cycles"), 9'000'000u);
}

}  // namespace
}  // namespace simtlm::timing_test
