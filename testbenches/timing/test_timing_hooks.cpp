// The branch-outcome and load-address hooks (models/ptx/hooks.hpp) in the timing model: installed through
// SessionOptions::hooks, they reach the SMs' executor, so a hooked timing run writes what the hooked
// functional run writes, and the coalescer sees the rewritten addresses (exactly the requests they coalesce
// into).

#include "hw/coalescer.hpp"
#include "models/launch/sequence.hpp"
#include "testbenches/timing/timing_fixture.hpp"
#include "testbenches/unit/hook_fixture.hpp"

using namespace simtlm;
using namespace simtlm::timing_test;
using namespace simtlm::ptx::hook_test;

namespace {

struct BothRuns {
  sim::ChildResult timing;
  std::vector<uint8_t> functional_out;
  // The functional run's global loads and stores through the machine's coalescer.
  uint64_t functional_load_requests = 0, functional_store_requests = 0;
  uint64_t functional_global_requests() const { return functional_load_requests + functional_store_requests; }
};

// Runs herding_hooks.yaml with `hooks` on the timing model (in a child) and functionally.
BothRuns run_both(ptx::ExecutionHooks hooks, const config::MachineConfig& m) {
  const launch::Launch l = launch::load_launch(herding_hooks_launch());
  launch::SessionOptions options = session_options();
  options.hooks = hooks;
  BothRuns r;
  r.timing = sim::run_timing_child(l, options, m);
  const uint32_t line =
      static_cast<uint32_t>(m.flag("l1.enabled") ? m.u("l1.line_bytes") : m.u("l2.line_bytes"));
  const hw::Coalescer coalescer(static_cast<uint32_t>(std::stoul(m.str("lsu.segment_bytes"))), line);
  std::vector<hw::CoalescedRequest> requests;
  options.observer = [&](const ptx::WarpContext&, uint32_t, ptx::LaneMask, const ptx::WarpStep& step) {
    if (step.kind != ptx::StepKind::memory || step.mem.space != ptx::Space::global || !step.active) return;
    requests.clear();
    coalescer.coalesce(step.mem.addr.data(), step.mem.bytes, step.active, requests);
    (step.mem.is_store ? r.functional_store_requests : r.functional_load_requests) += requests.size();
  };
  launch::Session session(l, options);
  const launch::SessionResult f = session.run();
  EXPECT_TRUE(f.ok());
  r.functional_out = f.buffers.at("out");
  EXPECT_TRUE(r.timing.ok()) << r.timing.error;
  return r;
}

uint32_t data_branch_pc() {
  const launch::Session session(launch::load_launch(herding_hooks_launch()), session_options());
  return conditional_branch_pc(session.kernel(), kDataLine);
}

std::string out_sha(const BothRuns& r) {
  return r.timing.ok() ? r.timing.sha256.at("out") : "";
}

uint64_t timing_global_requests(const BothRuns& r) {
  return r.timing.ok() ? r.timing.stats().group("memory").integer("global_requests") : 0;
}

TEST(TimingHooks, NullHooksMatchTheFunctionalRunAndItsRequests) {
  const BothRuns r = run_both({}, machine("default.yaml"));
  EXPECT_EQ(out_sha(r), launch::sha256_hex(r.functional_out));
  EXPECT_EQ(timing_global_requests(r), r.functional_global_requests());
}

class TimingHooksForcedBranch : public ::testing::TestWithParam<std::tuple<const char*, bool>> {};

// The forced direction reaches the timing model's branch unit: both runners write the forced side's values.
TEST_P(TimingHooksForcedBranch, ForcedDataBranchWritesWhatTheFunctionalRunWrites) {
  const auto [mechanism, taken] = GetParam();
  ForceBranch hook(data_branch_pc(), taken);
  const BothRuns r =
      run_both({&hook, nullptr}, machine("default.yaml", {{"compaction.mechanism", mechanism}}));
  EXPECT_EQ(out_sha(r), launch::sha256_hex(r.functional_out));
  const launch::Session session(launch::load_launch(herding_hooks_launch()), session_options());
  const auto image = session.prepare_device();
  const std::vector<int32_t> expected =
      expected_out(as<int32_t>(image->initial.at("data")), as<int32_t>(image->initial.at("index")),
                   {.data_branch_taken = taken});
  EXPECT_EQ(as<int32_t>(r.functional_out), expected);
  // A forced branch never diverges: the only divergent branch left is the last warp's bounds check.
  if (std::string(mechanism) == "none") {
    EXPECT_EQ(r.timing.stats().integer("divergent_branches"), 1u);
  }
}

INSTANTIATE_TEST_SUITE_P(Mechanisms, TimingHooksForcedBranch,
                         ::testing::Combine(::testing::Values("none", "tbc"), ::testing::Bool()),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param)) +
                                  (std::get<1>(info.param) ? "_taken" : "_not_taken");
                         });

// Herding every global load to its warp's first lane: the same values in both runners, and each herded load
// becomes one request, so the coalescer sees fewer requests, exactly as many as the rewritten addresses give.
TEST(TimingHooks, HerdedLoadsMatchTheFunctionalRunWithFewerRequests) {
  const config::MachineConfig m = machine("default.yaml");
  const BothRuns plain = run_both({}, m);
  RedirectToFirstLane hook;
  const BothRuns herded = run_both({nullptr, &hook}, m);
  EXPECT_EQ(out_sha(herded), launch::sha256_hex(herded.functional_out));
  EXPECT_NE(out_sha(herded), out_sha(plain));
  EXPECT_EQ(timing_global_requests(herded), herded.functional_global_requests());
  EXPECT_LT(timing_global_requests(herded), timing_global_requests(plain));
  EXPECT_EQ(timing_global_requests(plain), plain.functional_global_requests());
  // 32 warps issue two herded loads of one request each. Every lane of a warp then holds the same value, so
  // no warp diverges at the data branch and each stores one 128-byte line once; unherded, every warp runs
  // both sides and stores to its line twice.
  EXPECT_EQ(herded.functional_load_requests, 32u * 2);
  EXPECT_EQ(herded.functional_store_requests, 32u);
  EXPECT_EQ(plain.functional_store_requests, 64u);
  EXPECT_EQ(timing_global_requests(herded), 96u);
  EXPECT_GT(plain.functional_load_requests, 32u * 2 * 4);  // the random gather touches many lines per warp
}

// A launch sequence runs in one simulation; every launch of it sees the hooks, as in functional mode.
TEST(TimingHooks, ALaunchSequenceSeesTheHooksInEveryLaunch) {
  const launch::Launch l =
      launch::load_launch(herding_hooks_launch().replace_filename("herding_hooks_seq.yaml"));
  ForceBranch branch(data_branch_pc(), true);
  RedirectToFirstLane load;
  launch::SessionOptions options = session_options();
  options.hooks = {&branch, &load};
  const sim::ChildResult t = sim::run_timing_child(l, options, machine("default.yaml"));
  ASSERT_TRUE(t.ok()) << t.error;
  launch::SequenceSession functional(l, options);
  const launch::SessionResult f = functional.run();
  const launch::SessionResult plain = launch::SequenceSession(l, session_options()).run();
  EXPECT_EQ(t.sha256.at("out"), launch::sha256_hex(f.buffers.at("out")));
  EXPECT_NE(t.sha256.at("out"), launch::sha256_hex(plain.buffers.at("out")));
}

}  // namespace
