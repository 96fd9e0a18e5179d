// Call frames on both reconvergence stacks: the functional runner's (ptx::SimtStack) and the timing model's
// (hw::SimtStack, postdom and token), step by step and through studies::StackRunner on nvcc's call kernels.
#include <gtest/gtest.h>

#include <filesystem>

#include "hw/simt_stack.hpp"
#include "models/launch/session.hpp"
#include "models/ptx/simt_stack.hpp"
#include "studies/compaction_study.hpp"
#include "studies/stack_runner.hpp"

namespace simtlm {
namespace {

// A callee at 100: 100: @p bra 110 (reconverges only at its rets); 101..: ret at 103; 110..: ret at 111.
// The warp's lanes 0x0f call from PC 4 (lanes 0xf0 do not: a guarded call); 0x03 take the branch.
TEST(CallStacks, FunctionalStackWaitsAtTheReturnAddressForEveryCaller) {
  ptx::SimtStack s;
  s.reset(0, 0xff);
  s.top().pc = 4;
  ASSERT_TRUE(s.call(5, 100, 0x0f));
  EXPECT_EQ(s.depth(), 2u);
  EXPECT_EQ(s.top().pc, 100u);
  EXPECT_EQ(s.top().mask, 0x0fu);
  EXPECT_TRUE(s.branch(100, 110, 0x03, ptx::kNoTarget));
  EXPECT_EQ(s.depth(), 4u);  // caller, frame (waiting at the virtual exit), fall-through, taken
  EXPECT_EQ(s.top().pc, 110u);
  s.top().pc = 111;
  s.ret(111, 0x03);
  ASSERT_TRUE(s.settle());
  EXPECT_EQ(s.top().pc, 101u);
  EXPECT_EQ(s.top().mask, 0x0cu);
  s.top().pc = 103;
  s.ret(103, 0x0c);
  ASSERT_TRUE(s.settle());
  EXPECT_EQ(s.depth(), 1u);
  EXPECT_EQ(s.top().pc, 5u);
  EXPECT_EQ(s.top().mask, 0xffu);
}

TEST(CallStacks, FunctionalStackRecursionNestsFramesAndExitsLeaveThemAll) {
  ptx::SimtStack s;
  s.reset(0, 0xff);
  s.call(1, 100, 0xff);
  s.call(101, 100, 0x0f);  // lanes 0x0f recurse
  EXPECT_EQ(s.depth(), 3u);
  s.exit(100, 0x01);  // a thread exits inside the inner call: it leaves every entry
  EXPECT_EQ(s.top().mask, 0x0eu);
  s.ret(105, 0x0e);
  ASSERT_TRUE(s.settle());
  EXPECT_EQ(s.top().pc, 101u);
  EXPECT_EQ(s.top().mask, 0xfeu);
  s.ret(105, 0xfe);
  ASSERT_TRUE(s.settle());
  EXPECT_EQ(s.depth(), 1u);
  EXPECT_EQ(s.top().pc, 1u);
  EXPECT_EQ(s.top().mask, 0xfeu);
}

hw::StackParams params(hw::Discipline d) {
  hw::StackParams p;
  p.discipline = d;
  p.timing = hw::kepler_timing();
  return p;
}

TEST(CallStacks, TimingStackReturnsEveryLaneAtTheCallersEntryUnderBothDisciplines) {
  for (const hw::Discipline d : {hw::Discipline::postdom, hw::Discipline::token}) {
    SCOPED_TRACE(d == hw::Discipline::token ? "token" : "postdom");
    hw::SimtStack s(params(d), 0);
    s.reset(4, 0xff);
    hw::StackUpdate u = s.call(0x0f, 5, 100);
    EXPECT_EQ(u.pushes, 1u);
    EXPECT_EQ(u.next_pc, 100u);
    EXPECT_EQ(u.mask, 0x0fu);
    EXPECT_EQ(s.call_depth(), 1u);
    u = s.branch(hw::BranchOutcome{100, 0x0f, 0x03, 110, 101, ptx::kNoTarget});
    EXPECT_TRUE(u.diverged);
    EXPECT_EQ(u.next_pc, 110u);
    EXPECT_EQ(u.mask, 0x03u);
    u = s.ret(0x03, 112);
    EXPECT_EQ(u.next_pc, 101u);  // the not-taken path, without the returned lanes
    EXPECT_EQ(u.mask, 0x0cu);
    u = s.ret(0x0c, 104);
    EXPECT_EQ(u.next_pc, 5u);
    EXPECT_EQ(u.mask, 0xffu);
    EXPECT_EQ(s.call_depth(), 0u);
    EXPECT_EQ(s.depth(), d == hw::Discipline::postdom ? 1u : 0u);
    // The caller's path after the call: exiting empties the stack.
    EXPECT_TRUE(s.exit(0xff, 6).done);
  }
}

// nvcc's call kernels on one warp through studies::StackRunner give the functional run's buffers.
TEST(CallStacks, StackRunnerMatchesTheFunctionalRunOnCallKernels) {
  for (const char* yaml : {"device_calls_O3.yaml", "device_calls_O0.yaml"}) {
    launch::Launch l =
        launch::load_launch(std::filesystem::path(SIMTLM_SOURCE_DIR) / "testbenches/timing" / yaml);
    l.grid = {1, 1, 1};
    l.block = {32, 1, 1};
    launch::Session session(l, {});
    const launch::SessionResult f = session.run();
    ASSERT_TRUE(f.ok()) << yaml;
    for (const hw::Discipline d : {hw::Discipline::postdom, hw::Discipline::token}) {
      const studies::StackRunResult r = studies::StackRunner(params(d)).run(l);
      EXPECT_EQ(r.buffers, f.buffers) << yaml;
      EXPECT_EQ(r.warp_instructions, f.stats.warp_instructions) << yaml << " " << int(d);
      EXPECT_GT(r.stack.max_depth, 3u) << yaml;  // fib's recursion nests call frames
    }
  }
}

// The CTA-wide stack of `simtlm compare` has no call frames: it refuses the kernel instead of treating a
// return as an exit.
TEST(CallStacks, CompactionStudyRefusesKernelsWithCalls) {
  const launch::Launch l = launch::load_launch(std::filesystem::path(SIMTLM_SOURCE_DIR) /
                                               "testbenches/timing/device_calls_O0.yaml");
  const launch::Session session(l, {});
  const std::unique_ptr<launch::DeviceImage> image = session.prepare_device();
  try {
    studies::run_compaction_study(session, *image, {hw::NamedPermutation::kIdentity});
    FAIL() << "no error";
  } catch (const ptx::KernelError& e) {
    EXPECT_EQ(
        std::string(e.what()),
        "kernel _Z12device_callsPiPfS_S_S_ calls .func _Z3fibi: calls are not supported by the CTA-wide "
        "compaction study");
  }
}

}  // namespace
}  // namespace simtlm
