// The branch-outcome and load-address hooks (models/ptx/hooks.hpp) in the functional runner, installed
// through SessionOptions::hooks as a herding run installs them: exact outputs under forced branches and
// herded loads, the exact events the hooks receive, and a bad rewrite as a located KernelError.
#include <gtest/gtest.h>

#include <set>

#include "models/launch/sequence.hpp"
#include "models/launch/session.hpp"
#include "testbenches/unit/hook_fixture.hpp"

namespace simtlm::ptx::hook_test {
namespace {

struct KernelPcs {
  uint32_t bounds_pc = 0, data_pc = 0;
  std::vector<uint32_t> gather_line_loads;  // the index load, then the gather
};

KernelPcs pcs_of(const Function& kernel) {
  return {conditional_branch_pc(kernel, kBoundsLine), conditional_branch_pc(kernel, kDataLine),
          global_load_pcs(kernel, kGatherLine)};
}

KernelPcs kernel_pcs() {
  const launch::Session session(launch::load_launch(herding_hooks_launch()), {});
  return pcs_of(session.kernel());
}

struct HookedRun : KernelPcs {
  std::vector<int32_t> data, index, out;
};

// Runs herding_hooks.yaml functionally with `hooks`; returns the initial inputs and the final out.
HookedRun run(ExecutionHooks hooks = {}) {
  launch::SessionOptions options;
  options.hooks = hooks;
  launch::Session session(launch::load_launch(herding_hooks_launch()), options);
  HookedRun r;
  static_cast<KernelPcs&>(r) = pcs_of(session.kernel());
  const auto image = session.prepare_device();
  r.data = as<int32_t>(image->initial.at("data"));
  r.index = as<int32_t>(image->initial.at("index"));
  const launch::SessionResult result = session.run();
  EXPECT_TRUE(result.ok());
  r.out = as<int32_t>(result.buffers.at("out"));
  return r;
}

TEST(PtxHooks, NullHooksRunTheKernelAsWritten) {
  const HookedRun r = run();
  ASSERT_EQ(r.gather_line_loads.size(), 2u);
  EXPECT_EQ(r.out, expected_out(r.data, r.index));
  // Both sides of the data branch run, so forcing either one is visible.
  int even = 0;
  for (int i = 0; i < kThreads; ++i) even += (r.data[size_t(r.index[size_t(i)])] & 1) == 0;
  EXPECT_GT(even, 100);
  EXPECT_LT(even, kThreads - 100);
}

TEST(PtxHooks, BranchHookForcesTheDataBranchTakenAtItsPcOnly) {
  ForceBranch hook(kernel_pcs().data_pc, true);
  const HookedRun r = run({&hook, nullptr});
  EXPECT_EQ(r.out, expected_out(r.data, r.index, {.data_branch_taken = true}));
}

TEST(PtxHooks, BranchHookForcesTheDataBranchNotTaken) {
  ForceBranch hook(kernel_pcs().data_pc, false);
  const HookedRun r = run({&hook, nullptr});
  EXPECT_EQ(r.out, expected_out(r.data, r.index, {.data_branch_taken = false}));
}

TEST(PtxHooks, ForcingTheBoundsCheckTakenEndsEveryThread) {
  ForceBranch hook(kernel_pcs().bounds_pc, true);
  const HookedRun r = run({&hook, nullptr});
  EXPECT_EQ(r.out, std::vector<int32_t>(1024, 0));
  for (const ForceBranch::Call& c : hook.calls)
    EXPECT_EQ(c.pc, r.bounds_pc);  // nobody reached the data branch
  EXPECT_EQ(hook.calls.size(), 32u);
}

// Every conditional branch execution reaches the hook once, with the warp's identity, the lanes that run the
// branch and the lanes whose guard takes it; bra.uni never does.
TEST(PtxHooks, BranchHookSeesEveryConditionalBranchWithItsWarpAndGuardMasks) {
  ForceBranch hook(kNoTarget, false);  // changes nothing
  const HookedRun r = run({&hook, nullptr});
  EXPECT_EQ(r.out, expected_out(r.data, r.index));
  ASSERT_EQ(hook.calls.size(), 64u);  // 32 warps at each of the two branches
  std::set<std::pair<uint32_t, uint64_t>> seen;
  for (const ForceBranch::Call& c : hook.calls) {
    EXPECT_EQ(c.warp.ctaid.x, c.warp.cta_linear);
    EXPECT_EQ(c.warp.ctaid.y, 0u);
    EXPECT_EQ(c.warp.ctaid.z, 0u);
    ASSERT_LT(c.warp.cta_linear, 4u);
    ASSERT_LT(c.warp.warp_in_cta, 8u);
    EXPECT_TRUE(seen.insert({c.pc, c.warp.cta_linear * 8 + c.warp.warp_in_cta}).second);
    const uint64_t cta = c.warp.cta_linear;
    const uint32_t warp = c.warp.warp_in_cta;
    if (c.pc == r.bounds_pc) {
      EXPECT_EQ(c.active, ~LaneMask{0});
      EXPECT_EQ(c.taken, lanes_where(cta, warp, [](int64_t i) { return i >= kThreads; }));
    } else {
      ASSERT_EQ(c.pc, r.data_pc);
      EXPECT_EQ(c.active, lanes_where(cta, warp, [](int64_t i) { return i < kThreads; }));
      EXPECT_EQ(c.taken, lanes_where(cta, warp, [&](int64_t i) {
                  return i < kThreads && (r.data[size_t(r.index[size_t(i)])] & 1) == 0;
                }));
    }
  }
  // The last warp of the last CTA holds threads 992..1023: eight of them pass the bounds check.
  EXPECT_EQ(lanes_where(3, 7, [](int64_t i) { return i < kThreads; }), 0xffu);
}

TEST(PtxHooks, LoadHookHerdsEveryGlobalLoadToTheFirstLane) {
  RedirectToFirstLane hook;
  const HookedRun r = run({nullptr, &hook});
  EXPECT_EQ(r.out,
            expected_out(r.data, r.index, {.data_branch_taken = std::nullopt, .loads_to_first_lane = true}));
  EXPECT_NE(r.out, expected_out(r.data, r.index));
}

// The hook sees every ld in every space (here the four ld.param of each warp and its two global loads), with
// the addresses the instruction computed; the index load's lanes are 4 bytes apart before the rewrite.
TEST(PtxHooks, LoadHookSeesEveryLoadWithSpaceMaskSizeAndAddresses) {
  RedirectToFirstLane hook(kNoTarget);  // rewrites nothing
  const HookedRun r = run({nullptr, &hook});
  EXPECT_EQ(r.out, expected_out(r.data, r.index));
  size_t params = 0, globals = 0;
  for (const RedirectToFirstLane::Call& c : hook.calls) {
    if (c.space == Space::param) {
      ++params;
      EXPECT_EQ(c.active, ~LaneMask{0});
      EXPECT_TRUE(c.bytes == 8 || c.bytes == 4);
      continue;
    }
    ASSERT_EQ(c.space, Space::global);
    ++globals;
    EXPECT_EQ(c.bytes, 4u);
    const LaneMask live =
        lanes_where(c.warp.cta_linear, c.warp.warp_in_cta, [](int64_t i) { return i < kThreads; });
    EXPECT_EQ(c.active, live);
    if (c.pc == r.gather_line_loads[0]) {
      for (LaneMask m = live; m; m &= m - 1) {
        const unsigned lane = unsigned(std::countr_zero(m));
        EXPECT_EQ(c.address[lane] - c.address[0], 4u * lane);
      }
    } else {
      EXPECT_EQ(c.pc, r.gather_line_loads[1]);
    }
  }
  EXPECT_EQ(params, 32u * 4);
  EXPECT_EQ(globals, 32u * 2);
}

TEST(PtxHooks, LoadHookAtTheGatherAloneGivesTheSameHerdedValues) {
  RedirectToFirstLane hook(kernel_pcs().gather_line_loads[1]);
  const HookedRun r = run({nullptr, &hook});
  EXPECT_EQ(r.out,
            expected_out(r.data, r.index, {.data_branch_taken = std::nullopt, .loads_to_first_lane = true}));
}

TEST(PtxHooks, BothHooksTogether) {
  ForceBranch branch(kernel_pcs().data_pc, false);
  RedirectToFirstLane load;
  const HookedRun r = run({&branch, &load});
  EXPECT_EQ(r.out, expected_out(r.data, r.index, {.data_branch_taken = false, .loads_to_first_lane = true}));
}

TEST(PtxHooks, AnOutOfBoundsRewriteIsALocatedKernelError) {
  const uint32_t gather = kernel_pcs().gather_line_loads[1];
  RedirectTo hook(gather, 0x10);
  launch::SessionOptions options;
  options.hooks.load = &hook;
  launch::Session session(launch::load_launch(herding_hooks_launch()), options);
  try {
    session.run();
    FAIL() << "the rewritten load did not fault";
  } catch (const KernelError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("out-of-bounds global access of 4 bytes at address 0x10"), std::string::npos) << what;
    EXPECT_NE(what.find("at kernel gather_branch, CTA (0,0,0), thread (0,0,0), PC " + std::to_string(gather) +
                        " (PTX line 52, herding_hooks.cu:9)"),
              std::string::npos)
        << what;
  }
}

TEST(PtxHooks, ALaunchSequenceInstallsTheHooksOnEveryLaunch) {
  const HookedRun plain = run();
  ForceBranch branch(plain.data_pc, true);
  RedirectToFirstLane load;
  launch::SessionOptions options;
  options.hooks = {&branch, &load};
  launch::SequenceSession sequence(
      launch::load_launch(herding_hooks_launch().replace_filename("herding_hooks_seq.yaml")), options);
  const launch::SessionResult result = sequence.run();
  EXPECT_TRUE(result.ok());
  EXPECT_EQ(as<int32_t>(result.buffers.at("out")),
            expected_out(plain.data, plain.index, {.data_branch_taken = true, .loads_to_first_lane = true}));
  // Two launches of 32 warps, each warp at two conditional branches and six loads (four ld.param, two
  // global).
  EXPECT_EQ(branch.calls.size(), 2u * 32 * 2);
  EXPECT_EQ(load.calls.size(), 2u * 32 * 6);
}

}  // namespace
}  // namespace simtlm::ptx::hook_test
