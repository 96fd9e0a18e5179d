// The relaxed rule of the herding safety analysis (models/ptx/herd_relaxed.hpp, `safety: relaxed`): each
// case it admits and each it must still refuse, on hand-written kernels, then on the lbm and sobel workloads.
#include <gtest/gtest.h>

#include <string>

#include "testbenches/unit/herd_safety_fixture.hpp"

namespace simtlm::ptx {
namespace {

using namespace herd_test;  // NOLINT: the fixture of these tests

constexpr HerdSafetyRule kStrict = HerdSafetyRule::strict;
constexpr HerdSafetyRule kRelaxed = HerdSafetyRule::relaxed;

// if (a[tid] != 0) a[tid + 2] = m; else a[tid + 1] = tid;  -- lbm's obstacle test in small
const std::string kObstacle = kernel(R"(
ld.global.u32 %r2, [%rd4];          // flag = a[tid]
setp.ne.u32 %p1, %r2, 0;
@%p1 bra $L_other;                  // obstacle test
st.global.u32 [%rd4+4], %r1;        // a[tid + 1] = tid
bra.uni $L_end;
$L_other:
st.global.u32 [%rd4+8], %r6;        // a[tid + 2] = m
$L_end:
)");

TEST(HerdSafetyRelaxed, ATestOnLoadedDataAroundStoresAddressedByTheThreadIsAdmitted) {
  const Analyzed strict(kObstacle, "obstacle.ptx", "k", kStrict);
  const Analyzed relaxed(kObstacle, "obstacle.ptx", "k", kRelaxed);
  const Reasons stores{{VulnerableKind::store_address, strict.pc("a[tid + 1] = tid")},
                       {VulnerableKind::store_address, strict.pc("a[tid + 2] = m")}};
  EXPECT_FALSE(strict.branch("obstacle test").safe);
  EXPECT_EQ(strict.branch("obstacle test").reasons, stores);
  EXPECT_TRUE(strict.branch("obstacle test").only_skipped.empty());

  const HerdSiteVerdict& test = relaxed.branch("obstacle test");
  EXPECT_TRUE(test.safe);
  EXPECT_TRUE(test.reasons.empty());
  EXPECT_EQ(test.only_skipped, stores);
  const std::string pcs = std::to_string(stores[0].pc) + ", " + std::to_string(stores[1].pc);
  EXPECT_EQ(describe_verdict(test, relaxed.module(), relaxed.fn()),
            "safe (relaxed: herding only skips or adds PCs " + pcs +
                ", whose operands no test on their path checks)");
  // Data herding of the flag only moves lanes between the two paths, the same way.
  EXPECT_FALSE(strict.load("flag = a[tid]").safe);
  EXPECT_TRUE(relaxed.load("flag = a[tid]").safe);
}

TEST(HerdSafetyRelaxed, ABoundsCheckIsStillRefused) {
  // if (tid < n) a[tid] = tid;
  const std::string text = kernel(R"(
setp.ge.u32 %p1, %r1, %r5;
@%p1 bra $L_end;                    // bounds check
st.global.u32 [%rd4], %r1;          // a[tid] = tid
$L_end:
)");
  const Analyzed a(text, "guard.ptx", "k", kRelaxed);
  EXPECT_FALSE(a.branch("bounds check").safe);
  EXPECT_EQ(a.branch("bounds check").reasons,
            (Reasons{{VulnerableKind::store_address, a.pc("a[tid] = tid")}}));
  EXPECT_TRUE(a.branch("bounds check").only_skipped.empty());
}

TEST(HerdSafetyRelaxed, ABoundsCheckAgainstALoadedBoundIsStillRefusedAndSoIsTheBoundsLoad) {
  // if (tid < a[0]) a[tid] = tid;  and the same check as a guarded store
  const std::string text = kernel(R"(
ld.global.u32 %r7, [%rd2];          // bound = a[0]
setp.ge.u32 %p1, %r1, %r7;
@%p1 bra $L_next;                   // bounds check
st.global.u32 [%rd4], %r1;          // a[tid] = tid
$L_next:
ld.global.u32 %r8, [%rd2+4];        // limit = a[1]
setp.lt.u32 %p2, %r1, %r8;
@%p2 st.global.u32 [%rd4+4], %r1;   // guarded store
)");
  const Analyzed a(text, "loaded_bound.ptx", "k", kRelaxed);
  // The guarded store counts too: its guard reads a[1], which the store under the check may write.
  EXPECT_FALSE(a.branch("bounds check").safe);
  EXPECT_EQ(a.branch("bounds check").reasons,
            (Reasons{{VulnerableKind::store_address, a.pc("a[tid] = tid")},
                     {VulnerableKind::store_address, a.pc("guarded store")}}));
  EXPECT_FALSE(a.load("bound = a[0]").safe);
  EXPECT_FALSE(a.load("limit = a[1]").safe);
  EXPECT_EQ(a.load("limit = a[1]").reasons,
            (Reasons{{VulnerableKind::store_address, a.pc("guarded store")}}));
}

TEST(HerdSafetyRelaxed, ACheckOfALoadedIndexIsStillRefused) {
  // i = a[tid]; if (i < n) a[i] = tid;  -- the test and the address share the loaded value
  const std::string text = kernel(R"(
ld.global.u32 %r2, [%rd4];          // index = a[tid]
setp.ge.u32 %p1, %r2, %r5;
@%p1 bra $L_end;                    // index check
mul.wide.u32 %rd5, %r2, 4;
add.s64 %rd6, %rd2, %rd5;
st.global.u32 [%rd6], %r1;          // a[index] = tid
$L_end:
)");
  const Analyzed a(text, "index_check.ptx", "k", kRelaxed);
  EXPECT_FALSE(a.branch("index check").safe);
  EXPECT_EQ(a.branch("index check").reasons,
            (Reasons{{VulnerableKind::store_address, a.pc("a[index] = tid")}}));
}

TEST(HerdSafetyRelaxed, ABranchThatChoosesTheAddressIsRefused) {
  // i = a[tid] != 0 ? tid : tid + 1000 (as two paths); a[i] = tid;
  const std::string text = kernel(R"(
ld.global.u32 %r2, [%rd4];          // flag = a[tid]
setp.ne.u32 %p1, %r2, 0;
mov.u32 %r3, %r1;
@%p1 bra $L_join;                   // flag test
add.u32 %r3, %r1, 1000;
$L_join:
mul.wide.u32 %rd5, %r3, 4;
add.s64 %rd6, %rd2, %rd5;
st.global.u32 [%rd6], %r1;          // a[i] = tid
)");
  const Analyzed a(text, "choose.ptx", "k", kRelaxed);
  EXPECT_FALSE(a.branch("flag test").safe);
  EXPECT_EQ(a.branch("flag test").reasons, (Reasons{{VulnerableKind::store_address, a.pc("a[i] = tid")}}));
}

TEST(HerdSafetyRelaxed, AnOuterDataTestAroundAnIntactBoundsCheckIsAdmittedTheCheckIsNot) {
  // if (a[tid] != 0) { if (tid < n) a[tid] = tid; }
  const std::string text = kernel(R"(
ld.global.u32 %r2, [%rd4];          // flag = a[tid]
setp.eq.u32 %p1, %r2, 0;
@%p1 bra $L_end;                    // flag test
setp.ge.u32 %p2, %r1, %r5;
@%p2 bra $L_end;                    // bounds check
st.global.u32 [%rd4], %r1;          // a[tid] = tid
$L_end:
)");
  const Analyzed strict(text, "nested.ptx", "k", kStrict);
  const Analyzed relaxed(text, "nested.ptx", "k", kRelaxed);
  const Reasons store{{VulnerableKind::store_address, strict.pc("a[tid] = tid")}};
  EXPECT_FALSE(strict.branch("flag test").safe);
  EXPECT_TRUE(relaxed.branch("flag test").safe);
  EXPECT_EQ(relaxed.branch("flag test").only_skipped, store);
  EXPECT_FALSE(relaxed.branch("bounds check").safe);
  EXPECT_EQ(relaxed.branch("bounds check").reasons, store);
}

TEST(HerdSafetyRelaxed, AZeroTestOfADivisorIsRefusedForTheDivisionOnly) {
  // d = a[tid]; if (d != 0) a[tid] = tid / d;
  const std::string text = kernel(R"(
ld.global.u32 %r2, [%rd4];          // d = a[tid]
setp.eq.u32 %p1, %r2, 0;
@%p1 bra $L_end;                    // zero test
div.u32 %r3, %r1, %r2;              // tid / d
st.global.u32 [%rd4], %r3;          // a[tid] = quotient
$L_end:
)");
  const Analyzed a(text, "zero.ptx", "k", kRelaxed);
  EXPECT_FALSE(a.branch("zero test").safe);
  EXPECT_EQ(a.branch("zero test").reasons, (Reasons{{VulnerableKind::divisor, a.pc("tid / d")}}));
  EXPECT_EQ(a.branch("zero test").only_skipped,
            (Reasons{{VulnerableKind::store_address, a.pc("a[tid] = quotient")}}));
}

TEST(HerdSafetyRelaxed, LoopExitsKeepTheLoopRule) {
  // do { x = a[tid]; a[tid] = x + 1; } while (a[tid] != m);  -- a retry loop, as in a tagged histogram
  const std::string text = kernel(R"(
$L_again:
ld.volatile.global.u32 %r2, [%rd4];   // x = a[tid]
add.u32 %r3, %r2, 1;
st.volatile.global.u32 [%rd4], %r3;   // a[tid] = x + 1
ld.volatile.global.u32 %r4, [%rd4];   // check = a[tid]
setp.ne.u32 %p1, %r4, %r6;
@%p1 bra $L_again;                    // retry
)");
  const Analyzed strict(text, "retry.ptx", "k", kStrict);
  const Analyzed relaxed(text, "retry.ptx", "k", kRelaxed);
  const Reasons accesses{{VulnerableKind::load_address, strict.pc("x = a[tid]")},
                         {VulnerableKind::store_address, strict.pc("a[tid] = x + 1")},
                         {VulnerableKind::load_address, strict.pc("check = a[tid]")}};
  Reasons all = accesses;
  all.push_back({VulnerableKind::loop_condition, strict.pc("retry")});
  EXPECT_EQ(strict.branch("retry").reasons, all);
  // The accesses of another trip are only added or skipped; whether the loop ends still counts.
  const HerdSiteVerdict& retry = relaxed.branch("retry");
  EXPECT_FALSE(retry.safe);
  EXPECT_EQ(retry.reasons, (Reasons{{VulnerableKind::loop_condition, strict.pc("retry")}}));
  EXPECT_EQ(retry.only_skipped, accesses);
}

// The branch of a workload kernel on a CUDA line.
const HerdSiteVerdict& branch_on_line(const Analyzed& a, uint32_t cuda_line) {
  for (const HerdSiteVerdict& v : a.safety().branches) {
    if (a.fn().code[v.pc].loc_line == cuda_line) return v;
  }
  ADD_FAILURE() << "no branch on CUDA line " << cuda_line;
  return a.safety().branches.front();
}

TEST(HerdSafetyRelaxed, LbmsObstacleTestIsAdmittedItsBoundsCheckIsNot) {
  const Analyzed strict = Analyzed::file("workloads/lbm/lbm.ptx", "lbm_stream_collide", kStrict);
  const Analyzed relaxed = Analyzed::file("workloads/lbm/lbm.ptx", "lbm_stream_collide", kRelaxed);
  EXPECT_FALSE(branch_on_line(strict, 32).safe);  // if (cell_noise[cell] < obstacle_percent)
  EXPECT_TRUE(branch_on_line(relaxed, 32).safe);
  EXPECT_EQ(branch_on_line(relaxed, 32).only_skipped.size(), branch_on_line(strict, 32).reasons.size());
  EXPECT_FALSE(branch_on_line(relaxed, 23).safe);  // if (cell >= cells) return;
  EXPECT_EQ(branch_on_line(relaxed, 23).reasons, branch_on_line(strict, 23).reasons);
}

TEST(HerdSafetyRelaxed, SobelsBorderTestAndBoundsCheckAreStillRefused) {
  const Analyzed strict = Analyzed::file("workloads/sobel/sobel.ptx", "sobel", kStrict);
  const Analyzed relaxed = Analyzed::file("workloads/sobel/sobel.ptx", "sobel", kRelaxed);
  for (uint32_t line : {7u, 8u}) {
    EXPECT_FALSE(branch_on_line(relaxed, line).safe) << "sobel.cu:" << line;
    EXPECT_EQ(branch_on_line(relaxed, line).reasons, branch_on_line(strict, line).reasons);
  }
}

}  // namespace
}  // namespace simtlm::ptx
