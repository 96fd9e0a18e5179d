// The functional runner on hand-written PTX text: divergence, loops, barriers (bar.sync, bar.red), CTA order,
// deadlock and budget messages that name the CUDA source line.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "models/ptx/cfg.hpp"
#include "models/ptx/parser.hpp"
#include "models/ptx/runner.hpp"
#include "models/ptx/simt_stack.hpp"

namespace simtlm::ptx {
namespace {

constexpr const char* kHeader = ".version 7.0\n.target sm_75\n.address_size 64\n.file 1 \"t.cu\"\n";

// One kernel with a single .u64 parameter pointing at `words` zeroed u32 words.
struct PtxLaunch {
  Module module;
  GlobalMemory global;
  LaunchContext launch;
  uint64_t out = 0;
  size_t words = 0;

  PtxLaunch(const std::string& body, Dim3 grid, Dim3 block, size_t out_words)
      : module(parse_ptx(std::string(kHeader) + body, "t.ptx")), words(out_words) {
    launch.module = &module;
    launch.kernel = &module.functions.at(0);
    launch.grid = grid;
    launch.block = block;
    launch.global = &global;
    launch.symbol_address.assign(module.symbols.size(), 0);
    out = global.allocate(out_words * 4, 256, "out");
    launch.param_buffer.assign(launch.kernel->param_bytes, 0);
    std::memcpy(launch.param_buffer.data() + launch.kernel->params.at(0).offset, &out, sizeof out);
  }
  RunStats run(uint64_t budget = RunOptions{}.instruction_budget) {
    Cfg cfg(*launch.kernel);
    FunctionalRunner runner(launch, cfg, RunOptions{budget});
    return runner.run();
  }
  std::vector<uint32_t> result() const {
    std::vector<uint32_t> v(words);
    global.read(out, v.data(), words * 4);
    return v;
  }
  std::string error(uint64_t budget = RunOptions{}.instruction_budget) {
    try {
      run(budget);
    } catch (const KernelError& e) {
      return e.what();
    }
    return "";
  }
};

TEST(RunnerPtx, DivergentIfElse) {
  PtxLaunch l(R"(
.visible .entry ifelse(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<5>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 1;
  setp.eq.s32 %p1, %r2, 0;
  @%p1 bra $L__BB0_2;
  mul.lo.s32 %r3, %r1, 3;
  bra.uni $L__BB0_3;
$L__BB0_2:
  mul.lo.s32 %r3, %r1, 5;
$L__BB0_3:
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd3, %rd2, %rd3;
  st.global.u32 [%rd3], %r3;
  ret;
}
)",
              Dim3{1, 1, 1}, Dim3{48, 1, 1}, 48);
  RunStats s = l.run();
  std::vector<uint32_t> got = l.result();
  for (uint32_t t = 0; t < 48; ++t) EXPECT_EQ(got[t], t * (t % 2 ? 3 : 5)) << t;
  EXPECT_EQ(s.branches, 2u);
  EXPECT_EQ(s.divergent_branches, 2u);
  EXPECT_EQ(s.warps, 2u);
}

TEST(RunnerPtx, LoopWithPerThreadTripCounts) {
  // out[tid] = 0 + 1 + ... + (tid - 1)
  PtxLaunch l(R"(
.visible .entry loop(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<5>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, 0;
  mov.u32 %r3, 0;
$L__BB0_1:
  setp.ge.u32 %p1, %r2, %r1;
  @%p1 bra $L__BB0_3;
  add.s32 %r3, %r3, %r2;
  add.s32 %r2, %r2, 1;
  bra.uni $L__BB0_1;
$L__BB0_3:
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd3, %rd2, %rd3;
  st.global.u32 [%rd3], %r3;
  ret;
}
)",
              Dim3{1, 1, 1}, Dim3{64, 1, 1}, 64);
  RunStats s = l.run();
  std::vector<uint32_t> got = l.result();
  for (uint32_t t = 0; t < 64; ++t) EXPECT_EQ(got[t], t * (t - 1) / 2 * (t > 0)) << t;
  EXPECT_EQ(s.branches, 32u + 64u);            // warp 0: 32 evaluations, warp 1: 64
  EXPECT_EQ(s.divergent_branches, 31u + 31u);  // the last evaluation of each warp is uniform
  EXPECT_EQ(s.max_stack_depth, 2u);
}

TEST(RunnerPtx, BarrierOrdersSharedMemory) {
  // out[tid] = sh[(tid + 1) % 64] after every thread wrote sh[tid] = tid * 7.
  PtxLaunch l(R"(
.visible .entry shift(.param .u64 out)
{
  .shared .align 4 .b8 sh[256];
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, sh;
  shl.b32 %r3, %r1, 2;
  add.s32 %r4, %r2, %r3;
  mul.lo.s32 %r5, %r1, 7;
  st.shared.u32 [%r4], %r5;
  bar.sync 0;
  add.s32 %r6, %r1, 1;
  and.b32 %r6, %r6, 63;
  shl.b32 %r6, %r6, 2;
  add.s32 %r6, %r2, %r6;
  ld.shared.u32 %r7, [%r6];
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd3, %rd2, %rd3;
  st.global.u32 [%rd3], %r7;
  ret;
}
)",
              Dim3{2, 1, 1}, Dim3{64, 1, 1}, 64);
  RunStats s = l.run();
  std::vector<uint32_t> got = l.result();
  for (uint32_t t = 0; t < 64; ++t) EXPECT_EQ(got[t], (t + 1) % 64 * 7) << t;
  EXPECT_EQ(s.barriers, 2u);
}

TEST(RunnerPtx, BarRedReducesOverTheArrivingThreads) {
  // out[tid] = popc(tid % 3 == 0) over the CTA, plus 1000 when every thread's tid < 64, plus 2000 when any
  // thread has tid == 5.
  PtxLaunch l(R"(
.visible .entry red(.param .u64 out)
{
  .reg .pred %p<6>;
  .reg .b32 %r<9>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  rem.u32 %r2, %r1, 3;
  setp.eq.u32 %p1, %r2, 0;
  bar.red.popc.u32 %r3, 0, %p1;
  setp.lt.u32 %p2, %r1, 64;
  bar.red.and.pred %p3, 1, %p2;
  setp.eq.u32 %p4, %r1, 5;
  bar.red.or.pred %p5, 2, %p4;
  selp.u32 %r4, 1000, 0, %p3;
  selp.u32 %r5, 2000, 0, %p5;
  add.s32 %r6, %r3, %r4;
  add.s32 %r6, %r6, %r5;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd3, %rd2, %rd3;
  st.global.u32 [%rd3], %r6;
  ret;
}
)",
              Dim3{1, 1, 1}, Dim3{70, 1, 1}, 70);
  ASSERT_EQ(l.error(), "");
  std::vector<uint32_t> got = l.result();
  for (uint32_t t = 0; t < 70; ++t) EXPECT_EQ(got[t], 24u + 2000u) << t;  // 24 multiples of 3 below 70
}

TEST(RunnerPtx, CtasRunInLinearOrderWithXFastest) {
  // Thread 0 of each CTA stores ctaid.x + 10 * ctaid.y + 100 * smid + 1000 * clock at out[linear CTA id].
  PtxLaunch l(R"(
.visible .entry order(.param .u64 out)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  mov.u32 %r9, %clock;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ctaid.y;
  mov.u32 %r3, %nctaid.x;
  mad.lo.s32 %r4, %r2, %r3, %r1;
  mov.u32 %r5, %smid;
  mad.lo.s32 %r6, %r2, 10, %r1;
  mad.lo.s32 %r6, %r5, 100, %r6;
  mad.lo.s32 %r6, %r9, 1000, %r6;
  mul.wide.u32 %rd3, %r4, 4;
  add.s64 %rd3, %rd2, %rd3;
  st.global.u32 [%rd3], %r6;
  ret;
}
)",
              Dim3{2, 3, 1}, Dim3{1, 1, 1}, 6);
  l.launch.nsm = 4;
  RunStats s = l.run();
  ASSERT_EQ(s.warp_instructions, 6u * 15);
  std::vector<uint32_t> got = l.result();
  for (uint32_t id = 0; id < 6; ++id)
    EXPECT_EQ(got[id], id % 2 + 10 * (id / 2) + 100 * (id % 4) + 1000 * 15 * id) << id;
}

TEST(RunnerPtx, DivergentBarrierDeadlockNamesTheSourceLine) {
  PtxLaunch l(R"(
.visible .entry stuck(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<3>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 8;
  @%p1 bra $L__BB0_2;
  .loc 1 7 0
  bar.sync 0;
$L__BB0_2:
  ret;
}
)",
              Dim3{1, 1, 1}, Dim3{32, 1, 1}, 1);
  const std::string e = l.error();
  EXPECT_NE(e.find("deadlock in kernel stuck, CTA (0,0,0): barrier 0 can never complete"), std::string::npos)
      << e;
  EXPECT_NE(e.find("warp 0 (24 threads) at PC 3"), std::string::npos) << e;
  EXPECT_NE(e.find("t.cu:7"), std::string::npos) << e;
  EXPECT_NE(e.find("arrived 24 of 32 threads"), std::string::npos) << e;
  EXPECT_NE(e.find("warp 0 lanes 0x000000ff [0x000000ff at PC 4"), std::string::npos) << e;
}

TEST(RunnerPtx, InstructionBudgetOverrun) {
  PtxLaunch l(R"(
.visible .entry spin(.param .u64 out)
{
  .reg .b32 %r<3>;
  mov.u32 %r1, 0;
$L__BB0_1:
  add.s32 %r1, %r1, 1;
  bra.uni $L__BB0_1;
}
)",
              Dim3{2, 1, 1}, Dim3{64, 1, 1}, 1);
  const std::string e = l.error(100000);
  EXPECT_NE(
      e.find("instruction budget of 100000 thread instructions exceeded in kernel spin, CTA (0,0,0), warp 0"),
      std::string::npos)
      << e;
}

}  // namespace
}  // namespace simtlm::ptx
