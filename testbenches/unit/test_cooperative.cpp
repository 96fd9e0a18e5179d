// Cooperative launches (issue 32, point 1) on the functional runner: the grid workspace of %envreg1:%envreg2,
// grid.sync() across CTAs that take scheduling rounds in turn, the trap of a launch that is not cooperative,
// the grid-wide livelock proof, and the machine's limit. Kernels: testbenches/apps/grid_sync/grid_sync.cu.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "models/launch/launch.hpp"
#include "models/launch/sequence.hpp"
#include "models/launch/session.hpp"

namespace simtlm::launch::cooperative_test {
namespace {

namespace fs = std::filesystem;

const fs::path kDir = fs::path(SIMTLM_SOURCE_DIR) / "testbenches/apps/grid_sync";

template <class T>
std::vector<T> values(const std::vector<uint8_t>& bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

// grid_phases on the host: per-CTA sums, the total, the scaled and shifted copy, then `rounds` smoothing
// steps ping-ponging between out and scratch. 32-bit arithmetic wraps as on the device.
struct Phases {
  std::vector<int32_t> partial, out, scratch;
};

int32_t wrap(int64_t v) {
  return static_cast<int32_t>(static_cast<uint32_t>(v));
}

Phases grid_phases(const std::vector<int32_t>& in, int ctas, int block, int rounds) {
  const int n = static_cast<int>(in.size()), threads = ctas * block;
  Phases p{std::vector<int32_t>(size_t(ctas) + 1, 0), std::vector<int32_t>(in.size(), 0),
           std::vector<int32_t>(in.size(), 0)};
  for (int t = 0; t < threads; ++t)
    for (int k = t; k < n; k += threads)
      p.partial[size_t(t / block)] = wrap(int64_t(p.partial[t / block]) + in[k]);
  int32_t total = 0;
  for (int b = 0; b < ctas; ++b) total = wrap(int64_t(total) + p.partial[b]);
  p.partial[size_t(ctas)] = total;
  for (int k = 0; k < n; ++k) p.out[k] = wrap(int64_t(in[k]) * total + in[(k + block) % n]);
  std::vector<int32_t>*src = &p.out, *dst = &p.scratch;
  for (int r = 0; r < rounds; ++r) {
    for (int k = 0; k < n; ++k) (*dst)[k] = wrap(int64_t((*src)[k]) - (*src)[(k + n - 1) % n] / 2);
    std::swap(src, dst);
  }
  return p;
}

SessionResult run_grid_sync(SessionOptions options = {}) {
  SequenceSession session(load_launch(kDir / "grid_sync.yaml"), options);
  return session.run();
}

TEST(Cooperative, GridBarriersOrderEveryPhaseAcrossCtas) {
  SequenceSession before_run(load_launch(kDir / "grid_sync.yaml"), {});
  before_run.reset();
  SessionResult initial;
  before_run.finish(initial);
  const std::vector<int32_t> in = values<int32_t>(initial.buffers.at("in"));
  const Phases expected = grid_phases(in, 8, 128, 5);

  const SessionResult r = run_grid_sync();
  EXPECT_EQ(values<int32_t>(r.buffers.at("partial")), expected.partial);
  EXPECT_EQ(values<int32_t>(r.buffers.at("out")), expected.out);
  EXPECT_EQ(values<int32_t>(r.buffers.at("scratch")), expected.scratch);
  ASSERT_EQ(r.launches.size(), 2u);
  // grid_clock: every CTA read the clock after the barrier later than every CTA read it before.
  const std::vector<int64_t> before = values<int64_t>(r.buffers.at("before"));
  const std::vector<int64_t> after = values<int64_t>(r.buffers.at("after"));
  EXPECT_GT(*std::min_element(after.begin(), after.end()), *std::max_element(before.begin(), before.end()));
  // Same inputs, same statistics: the interleaving is deterministic.
  const SessionResult again = run_grid_sync();
  EXPECT_EQ(again.buffers, r.buffers);
  EXPECT_EQ(again.stats.thread_instructions, r.stats.thread_instructions);
}

TEST(Cooperative, WorkspaceFollowsEveryBufferAndHoldsItsSize) {
  SequenceSession session(load_launch(kDir / "grid_sync.yaml"), {});
  session.reset();
  const std::unique_ptr<PlannedLaunch> first = session.next();
  ASSERT_TRUE(first);
  const uint64_t workspace = first->context->grid_workspace;
  ASSERT_NE(workspace, 0u);
  EXPECT_TRUE(first->context->cooperative);
  uint32_t size = 0;
  session.memory().read(workspace, &size, sizeof size);
  EXPECT_EQ(size, 8u);
  // The kernel's four pointer parameters (in, partial, out, scratch) lie below it: it was placed after them.
  const std::vector<uint8_t>& params = first->context->param_buffer;
  ASSERT_GE(params.size(), 32u);
  for (size_t k = 0; k < 4; ++k) {
    uint64_t buffer = 0;
    std::memcpy(&buffer, params.data() + 8 * k, sizeof buffer);
    EXPECT_LT(buffer, workspace) << "parameter " << k;
  }
}

TEST(Cooperative, LaunchThatIsNotCooperativeTrapsAndSaysWhy) {
  Launch launch = load_launch(kDir / "grid_sync.yaml");
  launch.steps[0].cooperative = false;
  try {
    SequenceSession(std::move(launch), {}).run();
    FAIL() << "grid.sync() ran without a cooperative launch";
  } catch (const ptx::KernelError& e) {
    const std::string what = e.what();
    EXPECT_TRUE(
        what.starts_with("launch 0 (kernel _Z11grid_phasesPKiPiS1_S1_ii at line 17, i = 0): trap: the "
                         "kernel reads the grid workspace of cooperative_groups::this_grid()"))
        << what;
    EXPECT_NE(what.find("launch it with `cooperative: true`"), std::string::npos) << what;
    EXPECT_NE(what.find("kernel _Z11grid_phasesPKiPiS1_S1_ii, CTA (0,0,0)"), std::string::npos) << what;
    EXPECT_NE(what.find("(PTX line "), std::string::npos) << what;
  }
}

TEST(Cooperative, GridBarrierSomeCtaNeverReachesIsAGridLivelock) {
  Session session(load_launch(kDir / "missing_cta.yaml"), {});
  try {
    session.run();
    FAIL() << "the grid finished";
  } catch (const ptx::KernelError& e) {
    const std::string what = e.what();
    EXPECT_TRUE(
        what.starts_with("livelock in cooperative launch of kernel _Z16grid_missing_ctaPi (8 CTAs): "))
        << what;
    EXPECT_NE(what.find("a grid.sync() that not every CTA reaches?"), std::string::npos) << what;
    EXPECT_NE(what.find(" CTA (0,0,0): warp 0 spinning in the loop closed at PC "), std::string::npos)
        << what;
    EXPECT_NE(what.find("and 3 more CTAs like them; 1 CTAs had finished"), std::string::npos) << what;
  }
}

TEST(Cooperative, MachineLimitRefusesAGridThatCannotBeResident) {
  SessionOptions options;
  std::vector<uint64_t> asked;
  options.cooperative_limit = [&asked](const ptx::LaunchContext& c) -> std::string {
    asked.push_back(c.grid.count());
    return c.grid.count() > 6 ? "too large" : "";
  };
  try {
    run_grid_sync(options);
    FAIL() << "8 CTAs ran on a machine holding 6";
  } catch (const LaunchError& e) {
    EXPECT_EQ(std::string(e.what()).substr(std::string(e.what()).find("grid_sync.yaml")),
              "grid_sync.yaml:17: kernel _Z11grid_phasesPKiPiS1_S1_ii: cooperative: too large");
  }
  EXPECT_EQ(asked, std::vector<uint64_t>{8});
  Launch small = load_launch(kDir / "missing_cta.yaml", {"grid=[6, 1, 1]"});
  Session fits(std::move(small), options);
  EXPECT_THROW(fits.run(), ptx::KernelError);  // 6 CTAs fit: it runs, into its livelock
  EXPECT_EQ(asked.back(), 6u);
}

TEST(Cooperative, FlagIsTrueOrFalse) {
  for (const char* bad : {"yes", "1", "[true]"}) {
    try {
      load_launch(kDir / "missing_cta.yaml", {std::string("cooperative=") + bad});
      FAIL() << bad;
    } catch (const LaunchError& e) {
      EXPECT_NE(std::string(e.what()).find("cooperative: expected true or false"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_FALSE(load_launch(kDir / "missing_cta.yaml", {"cooperative=false"}).cooperative);
}

}  // namespace
}  // namespace simtlm::launch::cooperative_test
