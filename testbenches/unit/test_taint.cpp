// Taint analysis of conditional branches (models/ptx/taint.hpp): the four code patterns of the SLP paper's
// Figure 4 as nvcc compiles them, Figure 10's pseudo PTX, the propagation rules one by one, and every kernel
// of the workload suite.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>

#include "models/ptx/parser.hpp"
#include "models/ptx/taint.hpp"

namespace fs = std::filesystem;
using namespace simtlm::ptx;

namespace {

const std::string kHeader = ".version 9.0\n.target sm_75\n.address_size 64\n";

// The kernels of Figure 4 written in CUDA (BFS, SORTNW, BITONIC, Mandelbrot) and compiled with CUDA 13
// (nvcc -ptx -arch=sm_75 -O3 -fmad=false); `#pragma unroll 1` keeps BITONIC's two loops and its branches.
// The CUDA source:
//   // (a) BFS: data-array value decides the branch.
//   extern "C" __global__ void fig4a_bfs(const int* edges, const int* visited, int* out) {
//     int tid = blockIdx.x * 256 + threadIdx.x;
//     int id = edges[tid];
//     if (!visited[id]) out[tid] = 1;
//   }
//   // (b) SORTNW: a programmatic value combined with data values.
//   extern "C" __global__ void fig4b_sortnw(unsigned* keys, unsigned dir, unsigned size) {
//     __shared__ unsigned s_key[512];
//     s_key[threadIdx.x] = keys[threadIdx.x];
//     __syncthreads();
//     unsigned ddd = dir & ((threadIdx.x & (size / 2)) != 0);
//     unsigned a = s_key[threadIdx.x], b = s_key[threadIdx.x ^ 1];
//     if ((a > b) == ddd) keys[threadIdx.x] = b;
//   }
//   // (c) BITONIC: thread index alone, inside two loops.
//   extern "C" __global__ void fig4c_bitonic(unsigned* out) {
//     __shared__ unsigned s[256];
//     const unsigned tid = threadIdx.x;
//   #pragma unroll 1
//     for (unsigned k = 2; k <= 256; k *= 2) {
//   #pragma unroll 1
//       for (unsigned j = k / 2; j > 0; j /= 2) {
//         unsigned ixj = tid ^ j;
//         if (ixj > tid) {
//           if ((tid & k) == 0) s[tid] = j; else s[ixj] = k;
//         }
//         __syncthreads();
//       }
//     }
//     out[tid] = s[tid];
//   }
//   // (d) Mandelbrot: ids combined with scalar parameters.
//   extern "C" __global__ void fig4d_mandelbrot(int* out, int imageW, int imageH) {
//     const int ix = blockDim.x * blockIdx.x + threadIdx.x;
//     const int iy = blockDim.y * blockIdx.y + threadIdx.y;
//     if ((ix < imageW) && (iy < imageH)) out[iy * imageW + ix] = ix ^ iy;
//   }
const std::string kFigure4 = kHeader + R"(
.visible .entry fig4a_bfs(
  .param .u64 fig4a_bfs_param_0,
  .param .u64 fig4a_bfs_param_1,
  .param .u64 fig4a_bfs_param_2
)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<14>;

  ld.param.u64 %rd3, [fig4a_bfs_param_0];
  ld.param.u64 %rd4, [fig4a_bfs_param_1];
  ld.param.u64 %rd2, [fig4a_bfs_param_2];
  cvta.to.global.u64 %rd5, %rd4;
  mov.u32 %r1, %ctaid.x;
  shl.b32 %r2, %r1, 8;
  mov.u32 %r3, %tid.x;
  add.s32 %r4, %r2, %r3;
  cvt.s64.s32 %rd1, %r4;
  cvta.to.global.u64 %rd6, %rd3;
  mul.wide.s32 %rd7, %r4, 4;
  add.s64 %rd8, %rd6, %rd7;
  ld.global.u32 %r5, [%rd8];
  mul.wide.s32 %rd9, %r5, 4;
  add.s64 %rd10, %rd5, %rd9;
  ld.global.u32 %r6, [%rd10];
  setp.ne.s32 %p1, %r6, 0;
  @%p1 bra $L__BB0_2;

  cvta.to.global.u64 %rd11, %rd2;
  shl.b64 %rd12, %rd1, 2;
  add.s64 %rd13, %rd11, %rd12;
  mov.u32 %r7, 1;
  st.global.u32 [%rd13], %r7;

$L__BB0_2:
  ret;

}
.visible .entry fig4b_sortnw(
  .param .u64 fig4b_sortnw_param_0,
  .param .u32 fig4b_sortnw_param_1,
  .param .u32 fig4b_sortnw_param_2
)
{
  .reg .pred %p<4>;
  .reg .b32 %r<17>;
  .reg .b64 %rd<5>;
  .shared .align 4 .b8 _ZZ12fig4b_sortnwE5s_key[2048];

  ld.param.u64 %rd2, [fig4b_sortnw_param_0];
  ld.param.u32 %r2, [fig4b_sortnw_param_1];
  ld.param.u32 %r3, [fig4b_sortnw_param_2];
  cvta.to.global.u64 %rd3, %rd2;
  mov.u32 %r4, %tid.x;
  mul.wide.u32 %rd4, %r4, 4;
  add.s64 %rd1, %rd3, %rd4;
  ld.global.u32 %r5, [%rd1];
  shl.b32 %r6, %r4, 2;
  mov.u32 %r7, _ZZ12fig4b_sortnwE5s_key;
  add.s32 %r8, %r7, %r6;
  st.shared.u32 [%r8], %r5;
  bar.sync 0;
  shr.u32 %r9, %r3, 1;
  and.b32 %r10, %r9, %r4;
  setp.ne.s32 %p1, %r10, 0;
  selp.u32 %r11, 1, 0, %p1;
  and.b32 %r12, %r11, %r2;
  xor.b32 %r13, %r6, 4;
  add.s32 %r14, %r7, %r13;
  ld.shared.u32 %r1, [%r14];
  ld.shared.u32 %r15, [%r8];
  setp.gt.u32 %p2, %r15, %r1;
  selp.u32 %r16, 1, 0, %p2;
  setp.ne.s32 %p3, %r12, %r16;
  @%p3 bra $L__BB1_2;

  st.global.u32 [%rd1], %r1;

$L__BB1_2:
  ret;

}
.visible .entry fig4c_bitonic(
  .param .u64 fig4c_bitonic_param_0
)
{
  .reg .pred %p<6>;
  .reg .b32 %r<19>;
  .reg .b64 %rd<5>;
  .shared .align 4 .b8 _ZZ13fig4c_bitonicE1s[1024];

  ld.param.u64 %rd2, [fig4c_bitonic_param_0];
  cvta.to.global.u64 %rd1, %rd2;
  mov.u32 %r1, %tid.x;
  shl.b32 %r11, %r1, 2;
  mov.u32 %r12, _ZZ13fig4c_bitonicE1s;
  add.s32 %r2, %r12, %r11;
  mov.u32 %r17, 2;

$L__BB2_1:
  .pragma "nounroll";
  setp.eq.s32 %p1, %r17, 0;
  @%p1 bra $L__BB2_8;

  shr.u32 %r18, %r17, 1;
  and.b32 %r5, %r17, %r1;

$L__BB2_3:
  .pragma "nounroll";
  xor.b32 %r7, %r18, %r1;
  setp.le.u32 %p2, %r7, %r1;
  @%p2 bra $L__BB2_7;

  setp.eq.s32 %p3, %r5, 0;
  @%p3 bra $L__BB2_6;

  shl.b32 %r13, %r7, 2;
  add.s32 %r15, %r12, %r13;
  st.shared.u32 [%r15], %r17;
  bra.uni $L__BB2_7;

$L__BB2_6:
  st.shared.u32 [%r2], %r18;

$L__BB2_7:
  bar.sync 0;
  shr.u32 %r18, %r18, 1;
  setp.ne.s32 %p4, %r18, 0;
  @%p4 bra $L__BB2_3;

$L__BB2_8:
  shl.b32 %r17, %r17, 1;
  setp.lt.u32 %p5, %r17, 257;
  @%p5 bra $L__BB2_1;

  ld.shared.u32 %r16, [%r2];
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  st.global.u32 [%rd4], %r16;
  ret;

}
.visible .entry fig4d_mandelbrot(
  .param .u64 fig4d_mandelbrot_param_0,
  .param .u32 fig4d_mandelbrot_param_1,
  .param .u32 fig4d_mandelbrot_param_2
)
{
  .reg .pred %p<4>;
  .reg .b32 %r<13>;
  .reg .b64 %rd<5>;

  ld.param.u64 %rd1, [fig4d_mandelbrot_param_0];
  ld.param.u32 %r3, [fig4d_mandelbrot_param_1];
  ld.param.u32 %r4, [fig4d_mandelbrot_param_2];
  mov.u32 %r5, %ntid.x;
  mov.u32 %r6, %ctaid.x;
  mov.u32 %r7, %tid.x;
  mad.lo.s32 %r1, %r5, %r6, %r7;
  mov.u32 %r8, %ctaid.y;
  mov.u32 %r9, %ntid.y;
  mov.u32 %r10, %tid.y;
  mad.lo.s32 %r2, %r9, %r8, %r10;
  setp.ge.s32 %p1, %r1, %r3;
  setp.ge.s32 %p2, %r2, %r4;
  or.pred %p3, %p1, %p2;
  @%p3 bra $L__BB3_2;

  cvta.to.global.u64 %rd2, %rd1;
  mad.lo.s32 %r11, %r2, %r3, %r1;
  mul.wide.s32 %rd3, %r11, 4;
  add.s64 %rd4, %rd2, %rd3;
  xor.b32 %r12, %r1, %r2;
  st.global.u32 [%rd4], %r12;

$L__BB3_2:
  ret;

}

)";

// Figure 10's pseudo PTX as a kernel: a branch on %tid.x, a branch on a loaded value, and an immediate that
// clears the taint of %r2 before a third branch.
const std::string kFigure10 = kHeader + R"(
.visible .entry figure10(.param .u64 g_data)
{
  .reg .pred %p<8>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  mov.u32 %r2, %tid.x;
  setp.eq.u32 %p1, %r2, 0;
  @%p1 bra JUMP_1;
  ld.param.u64 %rd3, [g_data];
  cvta.to.global.u64 %rd3, %rd3;
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.u32 %r5, [%rd4];
  setp.gt.u32 %p6, %r5, 1;
  @%p6 bra JUMP_2;
  mov.u32 %r2, %r5;
  mov.u32 %r2, 100;
  setp.lt.u32 %p2, %r2, 50;
  @%p2 bra JUMP_1;
JUMP_2:
  setp.lt.u32 %p3, %r2, 7;
  @%p3 bra JUMP_1;
JUMP_1:
  ret;
}
)";

// Per kernel of `module`: each conditional branch's classification, keyed by its predicate register's name.
std::map<std::string, BranchTaint> branches_by_predicate(const Module& module, const std::string& kernel) {
  const Function& fn = module.functions.at(module.function_index.at(kernel));
  std::map<std::string, BranchTaint> out;
  const TaintAnalysis taint(module, fn);
  for (const BranchTaint& b : taint.branches()) {
    EXPECT_TRUE(out.emplace(fn.regs.at(b.predicate).name, b).second)
        << kernel << ": two branches on one predicate";
  }
  return out;
}

// "ld.global %r5" style description of the instruction at `pc`, to check which load a D-branch names.
std::string load_at(const Module& module, const std::string& kernel, uint32_t pc) {
  const Function& fn = module.functions.at(module.function_index.at(kernel));
  if (pc >= fn.code.size()) return "none";
  const Instr& in = fn.code[pc];
  return std::string(op_name(in.op)) + "." + space_name(in.space) + " " + fn.regs.at(in.dst[0].reg).name;
}

TEST(TaintFigure4, BfsBranchOnALoadedValueIsD) {
  const Module m = parse_ptx(kFigure4, "figure4.ptx");
  const auto b = branches_by_predicate(m, "fig4a_bfs");
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b.at("%p1").kind, BranchClass::kData);
  EXPECT_EQ(b.at("%p1").sources, kFromData | kFromThread | kFromCta | kFromParam);
  // visited[id] is read at an address made of edges[tid]: the lowest load reaching the predicate is
  // edges[tid].
  EXPECT_EQ(load_at(m, "fig4a_bfs", b.at("%p1").data_load_pc), "ld.global %r5");
}

TEST(TaintFigure4, SortnwProgrammaticValueCombinedWithDataIsD) {
  const Module m = parse_ptx(kFigure4, "figure4.ptx");
  const auto b = branches_by_predicate(m, "fig4b_sortnw");
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b.at("%p3").kind, BranchClass::kData);
  EXPECT_EQ(b.at("%p3").sources, kFromData | kFromThread | kFromParam);
  // The keys reach the predicate through shared memory: the shared loads are the sources, not ld.global (a
  // store does not carry taint; the value read back is data in its own right).
  EXPECT_EQ(load_at(m, "fig4b_sortnw", b.at("%p3").data_load_pc), "ld.shared %r1");
}

TEST(TaintFigure4, BitonicThreadIndexBranchesInsideLoopsAreP) {
  const Module m = parse_ptx(kFigure4, "figure4.ptx");
  const auto b = branches_by_predicate(m, "fig4c_bitonic");
  ASSERT_EQ(b.size(), 5u);
  for (const auto& [predicate, branch] : b) EXPECT_EQ(branch.kind, BranchClass::kProgrammatic) << predicate;
  EXPECT_EQ(b.at("%p2").sources, kFromThread);  // ixj > tid, ixj = tid ^ j
  EXPECT_EQ(b.at("%p3").sources, kFromThread);  // (tid & k) == 0
  // The loop counters start from immediates and only shift: no source at all, across both back edges.
  EXPECT_EQ(b.at("%p1").sources, 0);
  EXPECT_EQ(b.at("%p4").sources, 0);
  EXPECT_EQ(b.at("%p5").sources, 0);
  EXPECT_EQ(b.at("%p2").data_load_pc, kNoTarget);
}

TEST(TaintFigure4, MandelbrotIdsAgainstScalarParametersAreP) {
  const Module m = parse_ptx(kFigure4, "figure4.ptx");
  const auto b = branches_by_predicate(m, "fig4d_mandelbrot");
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b.at("%p3").kind, BranchClass::kProgrammatic);
  EXPECT_EQ(b.at("%p3").sources, kFromThread | kFromCta | kFromParam);
}

TEST(TaintFigure10, ThreadIdDataAndClearedByImmediate) {
  const Module m = parse_ptx(kFigure10, "figure10.ptx");
  const auto b = branches_by_predicate(m, "figure10");
  ASSERT_EQ(b.size(), 4u);
  EXPECT_EQ(b.at("%p1").kind, BranchClass::kProgrammatic);
  EXPECT_EQ(b.at("%p1").sources, kFromThread);
  EXPECT_EQ(b.at("%p6").kind, BranchClass::kData);
  EXPECT_EQ(load_at(m, "figure10", b.at("%p6").data_load_pc), "ld.global %r5");
  // %r2 held the loaded value, then 100: the immediate cleared it.
  EXPECT_EQ(b.at("%p2").kind, BranchClass::kProgrammatic);
  EXPECT_EQ(b.at("%p2").sources, 0);
  // JUMP_2 is reached with %r2 = %tid.x (from the D-branch) or 100 (falling through): the join is P.
  EXPECT_EQ(b.at("%p3").kind, BranchClass::kProgrammatic);
  EXPECT_EQ(b.at("%p3").sources, kFromThread);
}

TEST(TaintAnalysisApi, AtFindsOnlyConditionalBranches) {
  const Module m = parse_ptx(kFigure10, "figure10.ptx");
  const TaintAnalysis taint(m, m.functions[0]);
  EXPECT_EQ(taint.at(2).kind, BranchClass::kProgrammatic);  // @%p1 bra JUMP_1
  EXPECT_EQ(taint.at(9).kind, BranchClass::kData);          // @%p6 bra JUMP_2
  EXPECT_THROW(taint.at(0), std::out_of_range);
  EXPECT_THROW(taint.at(100), std::out_of_range);
  EXPECT_EQ(branch_class_letter(BranchClass::kData), 'D');
  EXPECT_EQ(branch_class_letter(BranchClass::kProgrammatic), 'P');
  EXPECT_EQ(describe_sources(kFromData | kFromParam | kFromMachine), "data+param+machine");
  EXPECT_EQ(describe_sources(0), "imm");
}

// A kernel body with the given instructions; registers %p0-7, %r0-15, %rd0-15 and one pointer parameter.
Module kernel_with(const std::string& body, const std::string& extra_decls = "") {
  return parse_ptx(kHeader + extra_decls + R"(
.visible .entry k(.param .u64 k_data, .param .u32 k_n)
{
  .reg .pred %p<8>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<16>;
  .local .align 4 .b8 __local_depot0[16];
  ld.param.u64 %rd1, [k_data];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
)" + body + R"(
DONE:
  ret;
}
)",
                   "rules.ptx");
}

TEST(TaintRules, LoopCarriedDataReachesTheLoopHeaderBranch) {
  // x starts as %tid.x and each iteration adds the element loaded by the previous one: the data reaches x
  // only on the second trip around the back edge, so a single pass over the blocks would call the header's
  // branch P. The trip-count branch stays P.
  const Module m = kernel_with(R"(
  mov.u32 %r2, 0;
  mov.u32 %r9, 0;
LOOP:
  setp.gt.u32 %p1, %r1, 100;
  @%p1 bra DONE;
  add.u32 %r1, %r1, %r9;
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r9, [%rd3];
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p2, %r2, 8;
  @%p2 bra LOOP;
)");
  const auto b = branches_by_predicate(m, "k");
  EXPECT_EQ(b.at("%p1").kind, BranchClass::kData);
  EXPECT_EQ(b.at("%p1").sources, kFromData | kFromThread | kFromParam);
  EXPECT_EQ(load_at(m, "k", b.at("%p1").data_load_pc), "ld.global %r9");
  EXPECT_EQ(b.at("%p2").kind, BranchClass::kProgrammatic);
  EXPECT_EQ(b.at("%p2").sources, 0);
}

TEST(TaintRules, JoinOfADataPathAndAnImmediatePathIsD) {
  const Module m = kernel_with(R"(
  ld.global.u32 %r3, [%rd1];
  setp.eq.u32 %p0, %r1, 0;
  @%p0 bra ELSE;
  mov.u32 %r7, %r3;
  bra.uni JOIN;
ELSE:
  mov.u32 %r7, 5;
JOIN:
  setp.eq.u32 %p4, %r7, 5;
  @%p4 bra DONE;
)");
  const auto b = branches_by_predicate(m, "k");
  EXPECT_EQ(b.at("%p0").kind, BranchClass::kProgrammatic);
  EXPECT_EQ(b.at("%p4").kind, BranchClass::kData);
}

TEST(TaintRules, PredicatesSelpAndGuardedWritesCarryTaint) {
  const Module m = kernel_with(R"(
  ld.global.u32 %r3, [%rd1];
  setp.gt.s32 %p1, %r3, 0;
  mov.u32 %r4, 1;
  @%p1 mov.u32 %r4, 2;
  setp.eq.u32 %p2, %r4, 2;
  @%p2 bra DONE;
  selp.u32 %r5, 1, 2, %p1;
  setp.eq.u32 %p3, %r5, 1;
  @%p3 bra DONE;
  setp.lt.u32 %p4, %r1, 3;
  and.pred %p5, %p4, %p1;
  @%p5 bra DONE;
  selp.u32 %r6, 1, 2, %p4;
  setp.eq.u32 %p6, %r6, 1;
  @%p6 bra DONE;
)");
  const auto b = branches_by_predicate(m, "k");
  EXPECT_EQ(b.at("%p2").kind, BranchClass::kData);  // %r4 is 1 or 2 depending on the loaded value
  EXPECT_EQ(b.at("%p3").kind, BranchClass::kData);  // selp on a data predicate
  EXPECT_EQ(b.at("%p5").kind, BranchClass::kData);  // predicate logic
  EXPECT_EQ(b.at("%p6").kind, BranchClass::kProgrammatic);
  EXPECT_EQ(b.at("%p6").sources, kFromThread);
}

TEST(TaintRules, EveryDataSpaceTaintsAndParamsDoNot) {
  const Module m = kernel_with(R"(
  ld.param.u32 %r2, [k_n];
  setp.lt.u32 %p0, %r1, %r2;
  @%p0 bra DONE;
  mov.u32 %r3, table;
  ld.const.u32 %r4, [table+4];
  setp.eq.u32 %p1, %r4, 0;
  @%p1 bra DONE;
  mov.u32 %r5, buffer;
  ld.shared.u32 %r6, [%r5];
  setp.eq.u32 %p2, %r6, 0;
  @%p2 bra DONE;
  ld.local.u32 %r7, [__local_depot0];
  setp.eq.u32 %p3, %r7, 0;
  @%p3 bra DONE;
  ld.u32 %r8, [%rd1];
  setp.eq.u32 %p4, %r8, 0;
  @%p4 bra DONE;
  atom.global.add.u32 %r9, [%rd1], 1;
  setp.eq.u32 %p5, %r9, 0;
  @%p5 bra DONE;
  setp.eq.u32 %p6, %r3, 0;
  @%p6 bra DONE;
)",
                               ".const .align 4 .b8 table[16];\n.shared .align 4 .b8 buffer[64];\n");
  const auto b = branches_by_predicate(m, "k");
  EXPECT_EQ(b.at("%p0").kind, BranchClass::kProgrammatic);
  EXPECT_EQ(b.at("%p0").sources, kFromThread | kFromParam);
  for (const char* data_predicate : {"%p1", "%p2", "%p3", "%p4", "%p5"}) {
    EXPECT_EQ(b.at(data_predicate).kind, BranchClass::kData) << data_predicate;
  }
  EXPECT_EQ(load_at(m, "k", b.at("%p1").data_load_pc), "ld.const %r4");
  EXPECT_EQ(load_at(m, "k", b.at("%p3").data_load_pc), "ld.local %r7");
  EXPECT_EQ(load_at(m, "k", b.at("%p4").data_load_pc), "ld.generic %r8");
  EXPECT_EQ(load_at(m, "k", b.at("%p5").data_load_pc), "atom.global %r9");
  // The address of a variable is a constant.
  EXPECT_EQ(b.at("%p6").sources, 0);
}

TEST(TaintRules, WarpExchangesCarryTheirOperandsTaint) {
  const Module m = kernel_with(R"(
  ld.global.u32 %r3, [%rd1];
  shfl.sync.idx.b32 %r4, %r3, 0, 31, -1;
  setp.eq.u32 %p1, %r4, 0;
  @%p1 bra DONE;
  setp.eq.u32 %p2, %r3, 0;
  vote.sync.ballot.b32 %r5, %p2, -1;
  setp.eq.u32 %p3, %r5, 0;
  @%p3 bra DONE;
  shfl.sync.bfly.b32 %r6, %r1, 1, 31, -1;
  setp.eq.u32 %p4, %r6, 0;
  @%p4 bra DONE;
  mov.u32 %r7, %clock;
  setp.eq.u32 %p5, %r7, 0;
  @%p5 bra DONE;
)");
  const auto b = branches_by_predicate(m, "k");
  EXPECT_EQ(b.at("%p1").kind, BranchClass::kData);
  EXPECT_EQ(b.at("%p3").kind, BranchClass::kData);
  EXPECT_EQ(b.at("%p4").kind, BranchClass::kProgrammatic);
  EXPECT_EQ(b.at("%p4").sources, kFromThread);
  EXPECT_EQ(b.at("%p5").kind, BranchClass::kProgrammatic);
  EXPECT_EQ(b.at("%p5").sources, kFromMachine);
}

TEST(TaintRules, ACallsReturnValueIsNotData) {
  // vprintf's return value comes back through a call-scope .param: not a data array and not a kernel
  // parameter.
  const Module m =
      kernel_with(R"(
  {
  .reg .b32 temp_param_reg;
  .param .b64 param0;
  st.param.b64 [param0], %rd1;
  .param .b64 param1;
  st.param.b64 [param1], %rd1;
  .param .b32 retval0;
  call.uni (retval0), vprintf, (param0, param1);
  ld.param.b32 %r3, [retval0];
  }
  setp.eq.u32 %p1, %r3, 0;
  @%p1 bra DONE;
)",
                  ".extern .func (.param .b32 func_retval0) vprintf(.param .b64 p0, .param .b64 p1);\n");
  const auto b = branches_by_predicate(m, "k");
  EXPECT_EQ(b.at("%p1").kind, BranchClass::kProgrammatic);
  EXPECT_EQ(b.at("%p1").sources, kFromMachine);
}

}  // namespace
