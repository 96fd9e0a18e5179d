// Fair warp switching in the functional runner (RunOptions::warp_quantum): warps that wait on other warps of
// their CTA without a barrier finish, and a livelock still ends at the instruction budget with a message that
// says what every warp was doing. Kernels: testbenches/ptx/warp_progress.cu.
#include <gtest/gtest.h>

#include "testbenches/unit/ptx_file_launch.hpp"

namespace simtlm::ptx {
namespace {

using test::PtxFileLaunch;

constexpr const char* kPtx = "testbenches/ptx/warp_progress.ptx";

std::vector<int32_t> handoff_expected() {
  std::vector<int32_t> v(32);
  for (int lane = 0; lane < 32; ++lane) {
    const int l = 31 - lane;
    v[lane] = l * (l + 1) * (2 * l + 1) / 6 + 1;
  }
  return v;
}

TEST(WarpProgress, FlagSetByAnEarlierWarp) {
  PtxFileLaunch l(kPtx, "flag_handoff", Dim3{1, 1, 1}, Dim3{64, 1, 1}, {4, 32 * 4}, {0});
  const RunStats s = l.run();
  EXPECT_EQ(l.read<int32_t>(1), handoff_expected());
  EXPECT_LT(s.warp_instructions, 1000u);  // warp 0 finished before warp 1 looked: no spinning
}

TEST(WarpProgress, FlagSetByALaterWarpInRoundRobinOrder) {
  // Warp 0 spins first; it yields at its loop's backward branch after the quantum and warp 1 sets the flag.
  PtxFileLaunch l(kPtx, "flag_handoff", Dim3{1, 1, 1}, Dim3{64, 1, 1}, {4, 32 * 4}, {1});
  const RunStats s = l.run();
  EXPECT_EQ(l.read<int32_t>(1), handoff_expected());
  // Deterministic: the same run again gives the same counts.
  PtxFileLaunch again(kPtx, "flag_handoff", Dim3{1, 1, 1}, Dim3{64, 1, 1}, {4, 32 * 4}, {1});
  const RunStats t = again.run();
  EXPECT_EQ(s.warp_instructions, t.warp_instructions);
  EXPECT_EQ(s.thread_instructions, t.thread_instructions);
  // Warp 0 spun for one quantum (10000 warp instructions) and at most one more loop trip.
  EXPECT_GE(s.warp_instructions, RunOptions{}.warp_quantum);
  EXPECT_LT(s.warp_instructions, RunOptions{}.warp_quantum + 1000);
}

TEST(WarpProgress, SpinLockCriticalSectionCountsExactly) {
  for (const uint64_t quantum : {uint64_t{7}, uint64_t{50}, RunOptions{}.warp_quantum}) {
    // Two CTAs of four warps; lane 0 of each warp takes the lock 5 times and adds 1 three times under it.
    PtxFileLaunch l(kPtx, "locked_counter", Dim3{2, 1, 1}, Dim3{128, 1, 1}, {4, 4}, {5});
    RunOptions options;
    options.warp_quantum = quantum;
    l.run(options);
    EXPECT_EQ(l.read<int32_t>(0).at(0), 0) << quantum;  // released
    EXPECT_EQ(l.read<int32_t>(1).at(0), 2 * 4 * 5 * 3) << quantum;
  }
}

TEST(WarpProgress, LivelockHitsTheBudgetAndSaysWhatEveryWarpDoes) {
  PtxFileLaunch l(kPtx, "spin_forever", Dim3{1, 1, 1}, Dim3{96, 1, 1}, {4, 96 * 4});
  RunOptions options;
  options.instruction_budget = 100000;  // ends before the livelock watch has two repeating rounds
  options.warp_quantum = 1000;
  const std::string e = l.error(options);
  // Warp 0 finished; warp 1 spins on the flag (loop closed by the branch at PC 9); warp 2 ran when warp 1
  // yielded and waits at the barrier warp 1 never reaches.
  const std::string where =
      "instruction budget of 100000 thread instructions exceeded in kernel "
      "_Z12spin_foreverPViPi, CTA (0,0,0), warp 1, PC ";
  EXPECT_EQ(e.rfind(where, 0), 0u) << e;
  const std::string tail =
      ": warp 1 spinning in the loop closed at PC 9 (PTX line 193, warp_progress.cu:43); warp 0 had "
      "finished; warp 2 waiting at barrier 0 at PC 12 (PTX line 200, warp_progress.cu:46)";
  EXPECT_NE(e.find(tail), std::string::npos) << e;
  EXPECT_EQ(e.size(), e.find(tail) + tail.size()) << e;
}

TEST(WarpProgress, ABarrierDeadlockIsStillReportedAsADeadlock) {
  // With the flag raised nobody spins: warp 2 waits at the barrier for warp 1, which exits meanwhile; the
  // barrier then completes for the threads left, so the kernel finishes.
  PtxFileLaunch l(kPtx, "spin_forever", Dim3{1, 1, 1}, Dim3{96, 1, 1}, {4, 96 * 4});
  const int32_t one = 1;
  l.global.write(l.buffers[0], &one, 4);
  const RunStats s = l.run();
  const auto out = l.read<int32_t>(1);
  for (int t = 0; t < 96; ++t) EXPECT_EQ(out[t], t / 32) << t;
  EXPECT_EQ(s.barriers, 1u);
}

}  // namespace
}  // namespace simtlm::ptx
