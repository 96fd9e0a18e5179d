// The functional runner's livelock watch (models/ptx/livelock.*): a CTA whose scheduling rounds repeat
// exactly stops at once with a message naming every warp, instead of running to the instruction budget.
#include <gtest/gtest.h>

#include "testbenches/unit/ptx_file_launch.hpp"

namespace simtlm::ptx {
namespace {

using test::PtxFileLaunch;

TEST(Livelock, SpinLockTakenByEveryLaneStopsAtOnceNamingTheLoop) {
  // Lane 0 of warp 0 wins the lock and waits at the loop's exit for its warp; the other lanes and warp 1
  // spin on the lock it holds. Before the watch this ran to the 2e10 budget (about 95 s).
  PtxFileLaunch l("testbenches/ptx/spin_lock.ptx", "naive_lock", Dim3{2, 1, 1}, Dim3{64, 1, 1}, {4, 4});
  RunOptions options;
  options.warp_quantum = 1000;
  const std::string e = l.error(options);
  EXPECT_EQ(
      e,
      "livelock in kernel _Z10naive_lockPiS_, CTA (0,0,0): a scheduling round left every register, stack, "
      "shared and global value as the round before, so the CTA can never finish (a lock held by a lane of "
      "the warp that spins on it needs sm_70's independent thread scheduling, which a reconvergence stack "
      "does not give): warp 0 spinning in the loop closed at PC 8 (PTX line 40, spin_lock.cu:5); warp 1 "
      "spinning in the loop closed at PC 8 (PTX line 40, spin_lock.cu:5)");
}

TEST(Livelock, FlagNobodySetsIsALivelockWithTheOtherWarpsStates) {
  PtxFileLaunch l("testbenches/ptx/warp_progress.ptx", "spin_forever", Dim3{1, 1, 1}, Dim3{96, 1, 1},
                  {4, 96 * 4});
  RunOptions options;
  options.warp_quantum = 1000;
  const std::string e = l.error(options);
  EXPECT_EQ(e.rfind("livelock in kernel _Z12spin_foreverPViPi, CTA (0,0,0): ", 0), 0u) << e;
  const std::string tail =
      ": warp 0 had finished; warp 1 spinning in the loop closed at PC 9 (PTX line 193, "
      "warp_progress.cu:43); "
      "warp 2 waiting at barrier 0 at PC 12 (PTX line 200, warp_progress.cu:46)";
  EXPECT_EQ(e.substr(e.size() - std::min(e.size(), tail.size())), tail) << e;
}

TEST(Livelock, ASpinThatMakesProgressRunsToItsEnd) {
  // Every round reads a larger ticks value, so no two rounds are alike: the loop runs until ticks = limit.
  PtxFileLaunch l("testbenches/ptx/spin_lock.ptx", "counted_spin", Dim3{1, 1, 1}, Dim3{64, 1, 1}, {4},
                  {uint64_t(20000)});
  RunOptions options;
  options.warp_quantum = 100;
  const RunStats s = l.run(options);
  EXPECT_EQ(l.read<int32_t>(0), std::vector<int32_t>{20002});  // each warp's last atomicAdd saw >= limit
  EXPECT_GT(s.warp_instructions, 20000u * 3);
}

}  // namespace
}  // namespace simtlm::ptx
