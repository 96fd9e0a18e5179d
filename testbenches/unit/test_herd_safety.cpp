// The herding safety analysis (models/ptx/herd_safety.hpp, docs/ir.md "Herding safety analysis") on small
// hand-written kernels, one or more per rule, and on the mandelbrot and sobel workloads.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/ptx/herd_safety.hpp"
#include "models/ptx/parser.hpp"
#include "testbenches/unit/herd_safety_fixture.hpp"

namespace simtlm::ptx {

namespace {

using namespace herd_test;  // NOLINT: the fixture of this file

TEST(HerdSafety, LoadFeedingStoreAddressIsUnsafeLoadFeedingStoredValueIsSafe) {
  const Analyzed a(kernel(R"(
ld.global.u32 %r2, [%rd4];      // index = a[tid]
mul.wide.u32 %rd5, %r2, 4;
add.s64 %rd6, %rd2, %rd5;
st.global.u32 [%rd6], %r1;      // a[index] = tid
ld.global.u32 %r3, [%rd4+4];    // value = a[tid + 1]
add.s32 %r4, %r3, 1;
st.global.u32 [%rd4], %r4;      // a[tid] = value + 1
)"),
                   "loads.ptx");
  EXPECT_EQ(site_pcs(a.safety().loads), (Pcs{a.pc("index = a[tid]"), a.pc("value = a[tid + 1]")}));
  const HerdSiteVerdict& index = a.load("index = a[tid]");
  EXPECT_FALSE(index.safe);
  EXPECT_EQ(index.reasons, (Reasons{{VulnerableKind::store_address, a.pc("a[index] = tid")}}));
  const HerdSiteVerdict& value = a.load("value = a[tid + 1]");
  EXPECT_TRUE(value.safe);
  EXPECT_TRUE(value.reasons.empty());
  EXPECT_TRUE(value.note.empty());
  EXPECT_TRUE(a.safety().branches.empty());
  EXPECT_EQ(a.safety().load_at(a.pc("a[index] = tid")), nullptr);  // a store is no load site
}

TEST(HerdSafety, LoadFeedingAnotherLoadsAddressIsUnsafeButItsOwnAddressDoesNotMatter) {
  const Analyzed a(kernel(R"(
ld.global.u32 %r2, [%rd4];      // index = a[tid]
mul.wide.u32 %rd5, %r2, 4;
add.s64 %rd6, %rd2, %rd5;
ld.global.u32 %r3, [%rd6];      // value = a[index]
st.global.u32 [%rd4], %r3;
)"),
                   "chain.ptx");
  EXPECT_EQ(a.load("index = a[tid]").reasons,
            (Reasons{{VulnerableKind::load_address, a.pc("value = a[index]")}}));
  // Its address comes from the first load, but herding it changes only the value it returns.
  EXPECT_TRUE(a.load("value = a[index]").safe);
}

TEST(HerdSafety, LoadFeedingIntegerDivisorIsUnsafeFloatDivisorIsNot) {
  const Analyzed a(kernel(R"(
ld.global.u32 %r2, [%rd4];          // d = a[tid]
div.u32 %r3, %r1, %r2;              // tid / d
ld.global.f32 %f1, [%rd4+4];        // e = a[tid + 1]
cvt.rn.f32.u32 %f2, %r3;
div.rn.f32 %f3, %f2, %f1;           // float: no fault
st.global.f32 [%rd4], %f3;
)"),
                   "divisor.ptx");
  EXPECT_EQ(a.load("d = a[tid]").reasons, (Reasons{{VulnerableKind::divisor, a.pc("tid / d")}}));
  EXPECT_TRUE(a.load("e = a[tid + 1]").safe);
}

TEST(HerdSafety, DataCarriedThroughSharedMemoryStillReachesTheAddress) {
  const Analyzed a(kernel(R"(
ld.global.u32 %r2, [%rd4];          // x = a[tid]
st.shared.u32 [tile], %r2;
bar.sync 0;
ld.shared.u32 %r3, [tile];          // y = tile[0]
mul.wide.u32 %rd5, %r3, 4;
add.s64 %rd6, %rd2, %rd5;
st.global.u32 [%rd6], %r1;          // a[y] = tid
)",
                          ".shared .align 4 .b8 tile[4];\n"),
                   "shared.ptx");
  EXPECT_EQ(a.load("x = a[tid]").reasons, (Reasons{{VulnerableKind::store_address, a.pc("a[y] = tid")}}));
  EXPECT_EQ(a.load("y = tile[0]").reasons, (Reasons{{VulnerableKind::store_address, a.pc("a[y] = tid")}}));
}

TEST(HerdSafety, BranchGuardingStoreIsUnsafe) {
  // if (tid < n) a[tid] = tid;
  const Analyzed a(kernel(R"(
setp.ge.u32 %p1, %r1, %r5;
@%p1 bra $L_end;                    // bounds check
st.global.u32 [%rd4], %r1;          // a[tid] = tid
$L_end:
)"),
                   "guard.ptx");
  EXPECT_EQ(site_pcs(a.safety().branches), (Pcs{a.pc("bounds check")}));
  const HerdSiteVerdict& guard = a.branch("bounds check");
  EXPECT_FALSE(guard.safe);
  EXPECT_EQ(guard.reasons, (Reasons{{VulnerableKind::store_address, a.pc("a[tid] = tid")}}));
  EXPECT_EQ(describe_verdict(guard, a.module(), a.fn()),
            "unsafe: the address of st.global at PC " + std::to_string(a.pc("a[tid] = tid")) + " (PTX line " +
                std::to_string(a.line("a[tid] = tid")) + ") depends on it");
}

TEST(HerdSafety, GuardedStoreMakesItsPredicatesLoadUnsafe) {
  const Analyzed a(kernel(R"(
ld.global.u32 %r2, [%rd4];          // flag = a[tid]
setp.ne.u32 %p1, %r2, 0;
@%p1 st.global.u32 [%rd4+4], %r1;   // if (flag) a[tid + 1] = tid
)"),
                   "guarded.ptx");
  EXPECT_EQ(a.load("flag = a[tid]").reasons,
            (Reasons{{VulnerableKind::store_address, a.pc("if (flag) a[tid + 1] = tid")}}));
}

TEST(HerdSafety, BranchSelectingOnlyAStoredValueIsSafe) {
  // a[tid] = tid > 10 ? 1 : 2;
  const Analyzed a(kernel(R"(
setp.gt.u32 %p1, %r1, 10;
mov.u32 %r2, 1;
@%p1 bra $L_join;                   // select
mov.u32 %r2, 2;
$L_join:
st.global.u32 [%rd4], %r2;
)"),
                   "select.ptx");
  const HerdSiteVerdict& select = a.branch("select");
  EXPECT_TRUE(select.safe);
  EXPECT_TRUE(select.reasons.empty());
  EXPECT_EQ(describe_verdict(select, a.module(), a.fn()), "safe");
}

TEST(HerdSafety, BranchWhoseSideDefinesALaterAddressIsUnsafe) {
  // offset = tid > 10 ? 4 : 0; a[offset] = tid;
  const Analyzed a(kernel(R"(
setp.gt.u32 %p1, %r1, 10;
mov.u32 %r2, 0;
@%p1 bra $L_join;                   // select offset
mov.u32 %r2, 4;
$L_join:
cvt.u64.u32 %rd5, %r2;
add.s64 %rd6, %rd2, %rd5;
st.global.u32 [%rd6], %r1;          // a[offset] = tid
)"),
                   "merge.ptx");
  EXPECT_EQ(a.branch("select offset").reasons,
            (Reasons{{VulnerableKind::store_address, a.pc("a[offset] = tid")}}));
}

// c = a[tid]; x = 0; for (i = START; ; ) { x = x * x + c; if (x > 4) break; if (++i >= n) break; } a[tid] =
// i;
std::string two_exit_loop(const std::string& start) {
  return kernel(R"(
ld.global.f32 %f1, [%rd4];          // c = a[tid]
mov.f32 %f2, 0f00000000;
mov.u32 %r3, )" +
                start + R"(;      // i = start
$L_loop:
mul.f32 %f2, %f2, %f2;
add.f32 %f2, %f2, %f1;
setp.gt.f32 %p1, %f2, 0f40800000;
@%p1 bra $L_done;                   // escape exit
add.s32 %r3, %r3, 1;
setp.lt.s32 %p2, %r3, %r5;
@%p2 bra $L_loop;                   // counter exit
$L_done:
st.global.u32 [%rd4], %r3;
)");
}

TEST(HerdSafety, DataExitIsSafeWhileABoundedExitStaysUnherded) {
  // The counter starts at the thread id, so the lanes disagree on the counter test: herding it could run a
  // lane past its bound, so it must stay unherded, and it cannot be herded itself.
  const Analyzed a(two_exit_loop("%r1"), "two_exits.ptx");
  const uint32_t counter_exit = a.pc("counter exit");
  const uint32_t escape_exit = a.pc("escape exit");
  const HerdSiteVerdict& escape = a.branch("escape exit");
  EXPECT_TRUE(escape.safe);
  EXPECT_EQ(escape.requires_unherded, (Pcs{counter_exit}));
  EXPECT_TRUE(escape.requires_unherded_branch(counter_exit));
  EXPECT_EQ(escape.note,
            "loop exit; another bounded exit (PC " + std::to_string(counter_exit) + ") stays unherded");
  const HerdSiteVerdict& counter = a.branch("counter exit");
  EXPECT_FALSE(counter.safe);
  EXPECT_EQ(counter.reasons, (Reasons{{VulnerableKind::loop_condition, escape_exit},
                                      {VulnerableKind::loop_condition, counter_exit}}));
  EXPECT_TRUE(counter.requires_unherded.empty());
  EXPECT_EQ(counter.note, "loop exit; no other bounded exit of its loop stays unherded");
  // The load feeds only the escape test.
  const HerdSiteVerdict& c = a.load("c = a[tid]");
  EXPECT_TRUE(c.safe);
  EXPECT_EQ(c.requires_unherded, (Pcs{counter_exit}));
}

TEST(HerdSafety, UniformCounterExitKeepsEveryExitSafe) {
  // Starting at 0 against the parameter n, every lane agrees on the counter test: herding changes nothing.
  const Analyzed a(two_exit_loop("0"), "uniform.ptx");
  const std::string test_pc = std::to_string(a.pc("setp.lt.s32 %p2"));
  for (const char* exit : {"escape exit", "counter exit"}) {
    const HerdSiteVerdict& v = a.branch(exit);
    EXPECT_TRUE(v.safe) << exit;
    EXPECT_TRUE(v.requires_unherded.empty()) << exit;
    EXPECT_EQ(v.note,
              "loop exit; bounded by a counter test the same in every lane (setp at PC " + test_pc + ")");
  }
  EXPECT_TRUE(a.load("c = a[tid]").safe);
  EXPECT_TRUE(a.load("c = a[tid]").requires_unherded.empty());
}

TEST(HerdSafety, LoopWithOnlyADataExitIsUnsafe) {
  // c = a[tid]; x = 0; do x = x * x + c; while (x <= 4);
  const Analyzed a(kernel(R"(
ld.global.f32 %f1, [%rd4];          // c = a[tid]
mov.f32 %f2, 0f00000000;
$L_loop:
mul.f32 %f2, %f2, %f2;
add.f32 %f2, %f2, %f1;
setp.le.f32 %p1, %f2, 0f40800000;
@%p1 bra $L_loop;                   // escape test
st.global.f32 [%rd4], %f2;
)"),
                   "data_loop.ptx");
  const uint32_t exit = a.pc("escape test");
  EXPECT_EQ(a.branch("escape test").reasons, (Reasons{{VulnerableKind::loop_condition, exit}}));
  EXPECT_EQ(a.branch("escape test").note, "loop exit; no other bounded exit of its loop stays unherded");
  EXPECT_EQ(a.load("c = a[tid]").reasons, (Reasons{{VulnerableKind::loop_condition, exit}}));
}

TEST(HerdSafety, LoadFeedingALoopBoundIsUnsafe) {
  // n = a[0]; for (i = 0; i < n; ++i) s += i; a[tid] = s;
  const Analyzed a(kernel(R"(
ld.global.u32 %r2, [%rd2];          // n = a[0]
mov.u32 %r3, 0;
mov.u32 %r4, 0;
$L_loop:
add.s32 %r4, %r4, %r3;
add.s32 %r3, %r3, 1;
setp.lt.u32 %p1, %r3, %r2;
@%p1 bra $L_loop;                   // i < n
st.global.u32 [%rd4], %r4;
)"),
                   "loaded_bound.ptx");
  const uint32_t exit = a.pc("i < n");
  EXPECT_EQ(a.load("n = a[0]").reasons, (Reasons{{VulnerableKind::loop_condition, exit}}));
  // The bound comes from memory, so the lanes may disagree: the exit is bounded only while not herded.
  EXPECT_EQ(a.branch("i < n").reasons, (Reasons{{VulnerableKind::loop_condition, exit}}));
}

TEST(HerdSafety, CounterStartedFromALoadIsNotABound) {
  // for (i = a[tid]; i < n; ++i) {} with an escape test beside it: the counter test bounds nothing.
  const Analyzed a(kernel(R"(
ld.global.u32 %r3, [%rd4];          // i = a[tid]
ld.global.f32 %f1, [%rd4+4];        // c = a[tid + 1]
mov.f32 %f2, 0f00000000;
$L_loop:
mul.f32 %f2, %f2, %f1;
setp.gt.f32 %p1, %f2, 0f40800000;
@%p1 bra $L_done;                   // escape exit
add.s32 %r3, %r3, 1;
setp.lt.s32 %p2, %r3, %r5;
@%p2 bra $L_loop;                   // counter exit
$L_done:
st.global.u32 [%rd4], %r3;
)"),
                   "loaded_start.ptx");
  EXPECT_FALSE(a.branch("escape exit").safe);
  EXPECT_FALSE(a.load("c = a[tid + 1]").safe);
  EXPECT_EQ(a.load("i = a[tid]").reasons, (Reasons{{VulnerableKind::loop_condition, a.pc("escape exit")},
                                                   {VulnerableKind::loop_condition, a.pc("counter exit")}}));
}

// for (i = 0; i < n; ++i) { j = 0; do { x *= c; } while (INNER); } a[tid] = x;
std::string nested_loops(const std::string& inner_exit) {
  return kernel(R"(
ld.global.f32 %f1, [%rd4];          // c = a[tid]
mov.f32 %f2, 0f3F800000;
mov.u32 %r3, 0;
$L_outer:
mov.u32 %r4, 0;
$L_inner:
mul.f32 %f2, %f2, %f1;
add.s32 %r4, %r4, 1;
setp.lt.f32 %p2, %f2, 0f42C80000;
)" + inner_exit +
                R"(
@%p3 bra $L_inner;                  // inner exit
add.s32 %r3, %r3, 1;
setp.lt.s32 %p4, %r3, %r5;
@%p4 bra $L_outer;                  // outer exit
st.global.f32 [%rd4], %f2;
)");
}

TEST(HerdSafety, NestedLoopsWithBoundedInnerExitAreSafe) {
  // Inner: while (++j < m && x < 100): the uniform j < m test bounds it even when the branch is herded.
  const Analyzed a(nested_loops("setp.lt.s32 %p1, %r4, %r6;\nand.pred %p3, %p1, %p2;"), "nested.ptx");
  const HerdSiteVerdict& inner = a.branch("inner exit");
  EXPECT_TRUE(inner.safe);
  EXPECT_EQ(inner.note, "loop exit; bounded by a counter test the same in every lane (setp at PC " +
                            std::to_string(a.pc("setp.lt.s32 %p1")) + ")");
  EXPECT_TRUE(a.branch("outer exit").safe);
  EXPECT_EQ(a.branch("outer exit").note,
            "loop exit; bounded by a counter test the same in every lane (setp at PCs " +
                std::to_string(a.pc("setp.lt.s32 %p1")) + ", " + std::to_string(a.pc("setp.lt.s32 %p4")) +
                ")");
  EXPECT_TRUE(a.load("c = a[tid]").safe);
}

TEST(HerdSafety, NestedLoopsWithUnboundedInnerLoopAreUnsafe) {
  // Inner: while (x < 100) only: the outer exit decides whether the unbounded inner loop runs again.
  const Analyzed a(nested_loops("mov.pred %p3, %p2;"), "nested_unbounded.ptx");
  const uint32_t inner = a.pc("inner exit");
  EXPECT_EQ(a.branch("inner exit").reasons, (Reasons{{VulnerableKind::loop_condition, inner}}));
  EXPECT_EQ(a.branch("outer exit").reasons, (Reasons{{VulnerableKind::loop_condition, inner}}));
  EXPECT_EQ(a.load("c = a[tid]").reasons, (Reasons{{VulnerableKind::loop_condition, inner}}));
}

TEST(HerdSafety, CycleWithTwoEntriesHasNoBoundedExit) {
  // The cycle a <-> b is entered at a or at b, so neither block dominates the other: no natural loop, and
  // its counter test cannot be trusted to bound it.
  const Analyzed a(kernel(R"(
setp.gt.u32 %p1, %r1, 10;
mov.u32 %r3, 0;
@%p1 bra $L_b;                      // enter at b
$L_a:
add.s32 %r3, %r3, 1;
$L_b:
add.s32 %r3, %r3, 2;
setp.lt.u32 %p2, %r3, %r5;
@%p2 bra $L_a;                      // cycle test
st.global.u32 [%rd4], %r3;
)"),
                   "irreducible.ptx");
  const Reasons cycle{{VulnerableKind::loop_condition, a.pc("cycle test")}};
  EXPECT_EQ(a.branch("cycle test").reasons, cycle);
  EXPECT_EQ(a.branch("enter at b").reasons, cycle);
}

const std::string kStoreAt = R"(
.func store_at(.param .b64 store_at_param_0, .param .b32 store_at_param_1)
{
.reg .b32 %r<2>;
.reg .b64 %rd<2>;
ld.param.u64 %rd1, [store_at_param_0];
ld.param.u32 %r1, [store_at_param_1];
st.global.u32 [%rd1], %r1;          // *where = what
ret;
}
)";

TEST(HerdSafety, ValuesPassedToACalledFunctionAreFollowed) {
  const Analyzed a(kernel(R"(
ld.global.u64 %rd5, [%rd4];         // where = p[tid]
ld.global.u32 %r2, [%rd4+8];        // what = a[tid + 2]
setp.ge.u32 %p1, %r1, %r5;
@%p1 bra $L_skip;                   // bounds check
{
.param .b64 param0;
st.param.b64 [param0], %rd5;
.param .b32 param1;
st.param.b32 [param1], %r2;
call.uni store_at, (param0, param1);
}
$L_skip:
)",
                          kStoreAt),
                   "call.ptx");
  ASSERT_EQ(a.fn().linked_callees.size(), 1u);
  const uint32_t store = a.pc("*where = what");
  EXPECT_GE(store, a.fn().linked_callees[0].entry_pc);
  EXPECT_EQ(a.load("where = p[tid]").reasons, (Reasons{{VulnerableKind::store_address, store}}));
  EXPECT_TRUE(a.load("what = a[tid + 2]").safe);
  EXPECT_EQ(a.branch("bounds check").reasons, (Reasons{{VulnerableKind::store_address, store}}));
}

const std::string kCountDown = R"(
.func (.param .b32 func_retval0) down(.param .b32 down_param_0)
{
.reg .pred %p<2>;
.reg .b32 %r<4>;
ld.param.u32 %r1, [down_param_0];
setp.eq.s32 %p1, %r1, 0;
mov.u32 %r3, 0;
@%p1 bra $L_base;                   // base case
add.s32 %r2, %r1, -1;
{
.param .b32 param0;
st.param.b32 [param0], %r2;
.param .b32 retval0;
call.uni (retval0), down, (param0); // recurse
ld.param.b32 %r3, [retval0];
}
$L_base:
st.param.b32 [func_retval0], %r3;
ret;
}
)";

TEST(HerdSafety, WhatDecidesARecursionIsUnsafe) {
  // a[tid] = down(a[tid]): the depth comes from memory and decides the recursion.
  const Analyzed a(kernel(R"(
ld.global.u32 %r2, [%rd4];          // depth = a[tid]
{
.param .b32 param0;
st.param.b32 [param0], %r2;
.param .b32 retval0;
call.uni (retval0), down, (param0);
ld.param.b32 %r3, [retval0];
}
st.global.u32 [%rd4], %r3;
)",
                          kCountDown),
                   "recursion.ptx");
  const Reasons recursion{{VulnerableKind::loop_condition, a.pc("// recurse")}};
  EXPECT_EQ(a.branch("base case").reasons, recursion);
  EXPECT_EQ(a.load("depth = a[tid]").reasons, recursion);
  EXPECT_EQ(describe_verdict(a.branch("base case"), a.module(), a.fn()),
            "unsafe: whether the recursive call at PC " + std::to_string(a.pc("// recurse")) + " (PTX line " +
                std::to_string(a.line("// recurse")) + ") runs depends on it");
}

// Mandelbrot (workloads/mandelbrot/mandelbrot.ptx; PTX lines in comments):
//   54 @%p3 bra: the bounds test ix >= width || iy >= height skips the store at line 106, whose address
//      is computed from ix and iy: unsafe (store_address).
//   67 @%p4 bra: max < 1 skips the loop and selects the count that is only stored: safe. It also decides
//      whether the loop runs, but the loop stays bounded (below).
//   94 @%p7 bra: the only loop branch. nvcc merged both exits into one predicate, p7 = (count < max) &&
//      (|z|^2 <= 4). The count starts at 0 and max is a parameter, so every lane agrees on count < max and
//      herding the branch can never carry the warp past it: safe, with nothing to keep unherded. (Were the
//      count test a separate, lane-varying exit, it would have to stay unherded.)
//   There are no loads outside .param.
TEST(HerdSafety, MandelbrotWorkload) {
  const Analyzed a = Analyzed::file("workloads/mandelbrot/mandelbrot.ptx", "mandelbrot");
  const HerdSafety& s = a.safety();
  EXPECT_EQ(site_pcs(s.branches), (Pcs{a.pc_at_line(54), a.pc_at_line(67), a.pc_at_line(94)}));
  EXPECT_TRUE(s.loads.empty());
  const HerdSiteVerdict& bounds = *s.branch_at(a.pc_at_line(54));
  EXPECT_EQ(bounds.reasons, (Reasons{{VulnerableKind::store_address, a.pc_at_line(106)}}));
  EXPECT_EQ(describe_verdict(bounds, a.module(), a.fn()),
            "unsafe: the address of st.global at PC 52 (PTX line 106, mandelbrot.cu:19) depends on it");
  EXPECT_TRUE(s.branch_at(a.pc_at_line(67))->safe);
  EXPECT_EQ(s.branch_at(a.pc_at_line(67))->note,
            "reaches the loop exit test at PC 46; bounded by a counter test the same in every lane (setp at "
            "PC 39)");
  EXPECT_EQ(a.pc_at_line(94), 46u);
  const HerdSiteVerdict& loop = *s.branch_at(a.pc_at_line(94));
  EXPECT_TRUE(loop.safe);
  EXPECT_TRUE(loop.requires_unherded.empty());
  EXPECT_EQ(loop.note, "loop exit; bounded by a counter test the same in every lane (setp at PC 39)");
  EXPECT_EQ(a.pc_at_line(87), 39u);
}

// Sobel (workloads/sobel/sobel.ptx):
//   48 @%p3 bra: the image bounds test controls every load and both stores: unsafe, ten reasons.
//   68 @%p10 bra: the border test chooses between storing 0 (line 74) and reading the eight neighbours
//      (lines 86-118) then storing at line 140; it controls all ten memory operations: unsafe.
//   134 @%p11 bra: the clamp to 255 selects only the stored value: safe.
//   The eight loads feed the gradient, which is only compared and stored: all safe.
TEST(HerdSafety, SobelWorkload) {
  const Analyzed a = Analyzed::file("workloads/sobel/sobel.ptx", "sobel");
  const HerdSafety& s = a.safety();
  const std::vector<uint32_t> load_lines = {86, 90, 96, 99, 102, 105, 115, 118};
  Pcs loads;
  for (uint32_t line : load_lines) loads.push_back(a.pc_at_line(line));
  EXPECT_EQ(site_pcs(s.loads), loads);
  for (const HerdSiteVerdict& load : s.loads) {
    EXPECT_TRUE(load.safe) << load.pc;
    EXPECT_TRUE(load.note.empty()) << load.pc;
  }
  EXPECT_EQ(site_pcs(s.branches), (Pcs{a.pc_at_line(48), a.pc_at_line(68), a.pc_at_line(134)}));
  Reasons memory;
  memory.push_back({VulnerableKind::store_address, a.pc_at_line(74)});
  for (uint32_t line : load_lines) memory.push_back({VulnerableKind::load_address, a.pc_at_line(line)});
  memory.push_back({VulnerableKind::store_address, a.pc_at_line(140)});
  EXPECT_EQ(s.branch_at(a.pc_at_line(48))->reasons, memory);
  EXPECT_EQ(s.branch_at(a.pc_at_line(68))->reasons, memory);
  EXPECT_TRUE(s.branch_at(a.pc_at_line(134))->safe);
  const std::string text = describe_verdict(*s.branch_at(a.pc_at_line(68)), a.module(), a.fn());
  EXPECT_EQ(text.substr(0, text.find('\n')), "unsafe: the address of st.global at PC " +
                                                 std::to_string(a.pc_at_line(74)) +
                                                 " (PTX line 74, sobel.cu:9) depends on it");
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 9);
}

}  // namespace
}  // namespace simtlm::ptx
