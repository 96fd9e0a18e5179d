// Front-end and functional-model gaps found on real CUDA kernels: 32-bit shared/local address wrap, the
// dynamic shared window's alignment, per-kernel static shared memory, WARP_SZ and per-kernel refusal of
// unsupported constructs. Kernels: testbenches/ptx/{shared_wrap,dynamic_shared_align,per_kernel_shared}.cu.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "models/ptx/kernel_layout.hpp"
#include "models/ptx/parser.hpp"
#include "testbenches/unit/ptx_kernel_run.hpp"

namespace simtlm::ptx {
namespace {

using test::kernel_ptx_path;
using test::KernelRun;
using ::testing::HasSubstr;

// Deterministic test data (a 32-bit LCG), not the standard library's distributions.
std::vector<int32_t> lcg_values(size_t count, uint32_t seed, int32_t lo, int32_t hi) {
  std::vector<int32_t> values(count);
  uint32_t state = seed;
  for (int32_t& v : values) {
    state = state * 1664525u + 1013904223u;
    v = lo + static_cast<int32_t>((state >> 8) % static_cast<uint32_t>(hi - lo + 1));
  }
  return values;
}

const Instr* find_instr(const Function& fn, Op op, Type type) {
  for (const Instr& in : fn.code) {
    if (in.op == op && in.type == type) return &in;
  }
  return nullptr;
}

// ---- 1. 32-bit shared and local addresses wrap modulo 2^32 --------------------------------------------

TEST(SharedAddressWrap, NvccEmitsANegativeBasePlusAPositiveOffset) {
  const Module module = load_ptx_file(kernel_ptx_path("shared_wrap.ptx"));
  const Function& nw = *module.find_entry("nw_tile", nullptr);
  // temp[m - tx + 1][tx + 1]: %r52 = -tx; %r54 = %r52 * 68 + temp; then [%r4 + 68] etc. For tx > 0 the
  // 32-bit base is below the array (negative when temp is at 0) and only the immediate brings it back.
  const Instr* neg = find_instr(nw, Op::neg, Type::s32);
  ASSERT_NE(neg, nullptr);
  bool scaled = false;
  for (const Instr& in : nw.code) {
    scaled |= in.op == Op::mad && in.src[0].kind == OperandKind::reg && in.src[0].reg == neg->dst[0].reg &&
              in.src[1].kind == OperandKind::imm && in.src[1].imm == 68;
  }
  EXPECT_TRUE(scaled);
  const Instr* load = nullptr;
  for (const Instr& in : nw.code) {
    if (in.op == Op::ld && in.space == Space::shared && in.src[0].reg != kNoReg && in.src[0].imm == 68) {
      load = &in;
      break;
    }
  }
  ASSERT_NE(load, nullptr) << "no ld.shared [%r + 68]";
}

// Host reference: Needleman-Wunsch over each 16x16 tile.
std::vector<int32_t> needleman_wunsch(std::vector<int32_t> score, const std::vector<int32_t>& reference,
                                      int tiles, int penalty) {
  for (int t = 0; t < tiles; ++t) {
    int32_t* m = score.data() + t * 17 * 17;
    const int32_t* r = reference.data() + t * 16 * 16;
    for (int y = 1; y <= 16; ++y) {
      for (int x = 1; x <= 16; ++x) {
        m[y * 17 + x] = std::max({m[(y - 1) * 17 + x - 1] + r[(y - 1) * 16 + x - 1],
                                  m[y * 17 + x - 1] - penalty, m[(y - 1) * 17 + x] - penalty});
      }
    }
  }
  return score;
}

TEST(SharedAddressWrap, NeedlemanWunschTileIsBitExact) {
  const Module module = load_ptx_file(kernel_ptx_path("shared_wrap.ptx"));
  constexpr int kTiles = 3;
  constexpr int kPenalty = 10;
  KernelRun run(module, "nw_tile", Dim3{kTiles, 1, 1}, Dim3{16, 1, 1});
  const std::vector<int32_t> reference = lcg_values(kTiles * 256, 7, -4, 11);
  std::vector<int32_t> score(kTiles * 17 * 17, 0);
  for (int t = 0; t < kTiles; ++t) {
    for (int i = 0; i <= 16; ++i) {
      score[t * 289 + i] = -kPenalty * i;
      score[t * 289 + i * 17] = -kPenalty * i;
    }
  }
  const uint64_t ref_addr = run.buffer(reference);
  const uint64_t score_addr = run.buffer(score);
  run.param(0, ref_addr);
  run.param(1, score_addr);
  run.param(2, kPenalty);
  const RunStats stats = run.run();
  EXPECT_EQ(run.read<int32_t>(score_addr, score.size()),
            needleman_wunsch(score, reference, kTiles, kPenalty));
  EXPECT_EQ(stats.barriers, kTiles * (1u + 16u + 15u));
}

TEST(SharedAddressWrap, FlipRowsThroughSixteenMinusTy) {
  const Module module = load_ptx_file(kernel_ptx_path("shared_wrap.ptx"));
  KernelRun run(module, "flip_rows", Dim3{1, 1, 1}, Dim3{16, 16, 1});
  const std::vector<int32_t> in = lcg_values(256, 3, -1000, 1000);
  const uint64_t in_addr = run.buffer(in);
  const uint64_t out_addr = run.buffer(std::vector<int32_t>(256, 0));
  run.param(0, in_addr);
  run.param(1, out_addr);
  run.run();
  const std::vector<int32_t> out = run.read<int32_t>(out_addr, 256);
  for (int r = 0; r < 16; ++r) {
    for (int c = 0; c < 16; ++c) ASSERT_EQ(out[r * 16 + c], in[(15 - r) * 16 + c] * 3 + 1) << r << "," << c;
  }
}

// Hand-written: the same wrap for .local with a 32-bit base register, and for a 32-bit shared address
// obtained from a generic one (cvta.to.shared.u64 + cvt.u32.u64, what __cvta_generic_to_shared gives).
// 64-bit generic addresses need no wrap. (cvta.to.shared.u32 exists only with .address_size 32, which
// ptxas no longer compiles.)
constexpr const char* kWrapForms = R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry wrap_forms(.param .u64 out)
{
  .local .align 4 .b8 frame[64];
  .shared .align 4 .b8 tile[128];
  .reg .b32 %r<16>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mul.lo.s32 %r3, %r1, 7;
  mov.u32 %r4, frame;
  sub.s32 %r5, %r4, %r2;
  st.local.u32 [%r5+60], %r3;
  mov.u32 %r6, 15;
  sub.s32 %r6, %r6, %r1;
  shl.b32 %r6, %r6, 2;
  add.s32 %r6, %r4, %r6;
  ld.local.u32 %r7, [%r6];
  mov.u32 %r8, tile;
  sub.s32 %r9, %r8, %r2;
  add.s32 %r10, %r3, 1000;
  st.shared.u32 [%r9+124], %r10;
  bar.sync 0;
  mov.u64 %rd3, tile;
  cvta.shared.u64 %rd4, %rd3;
  cvta.to.shared.u64 %rd5, %rd4;
  cvt.u32.u64 %r11, %rd5;
  sub.s32 %r12, %r11, %r2;
  ld.shared.u32 %r13, [%r12+124];
  cvt.u64.u32 %rd6, %r2;
  sub.s64 %rd7, %rd4, %rd6;
  ld.u32 %r14, [%rd7+124];
  mul.wide.u32 %rd8, %r1, 12;
  add.s64 %rd9, %rd2, %rd8;
  st.global.u32 [%rd9], %r7;
  st.global.u32 [%rd9+4], %r13;
  st.global.u32 [%rd9+8], %r14;
  ret;
}
)";

TEST(SharedAddressWrap, LocalAndConvertedSharedAddressesWrapToo) {
  const Module module = parse_ptx(kWrapForms, "wrap_forms.ptx");
  KernelRun run(module, "wrap_forms", Dim3{1, 1, 1}, Dim3{16, 1, 1});
  const uint64_t out = run.buffer(std::vector<uint32_t>(48, 0));
  run.param(0, out);
  run.run();
  const std::vector<uint32_t> got = run.read<uint32_t>(out, 48);
  for (uint32_t t = 0; t < 16; ++t) {
    EXPECT_EQ(got[3 * t], 7 * t) << t;
    EXPECT_EQ(got[3 * t + 1], 7 * t + 1000) << t;
    EXPECT_EQ(got[3 * t + 2], 7 * t + 1000) << t;
  }
}

TEST(SharedAddressWrap, AnAddressOutsideTheArrayAfterWrappingIsStillAnError) {
  std::string text = kWrapForms;
  text.replace(text.find("[%r9+124]"), 9, "[%r9+188]");
  const Module module = parse_ptx(text, "wrap_forms.ptx");
  KernelRun run(module, "wrap_forms", Dim3{1, 1, 1}, Dim3{16, 1, 1});
  run.param(0, run.buffer(std::vector<uint32_t>(32, 0)));
  EXPECT_THAT(run.error(), HasSubstr("out-of-bounds shared access of 4 bytes at offset 0xbc (size 128) at "
                                     "kernel wrap_forms, CTA (0,0,0), thread (0,0,0)"));
}

// ---- 2. Dynamic shared memory alignment ---------------------------------------------------------------

TEST(DynamicSharedWindow, StartsAtTheLargestExternAlignment) {
  const Module module = load_ptx_file(kernel_ptx_path("dynamic_shared_align.ptx"));
  const Function& kernel = *module.find_entry("stage_reversed", nullptr);
  // .shared .align 1 flags[3]; .extern .shared .align 16 staged[]; .extern .shared .align 64 lines[].
  const SharedLayout layout = shared_layout(kernel, 48 * 8);
  EXPECT_EQ(layout.static_bytes, 3u);
  EXPECT_EQ(layout.dynamic_offset, 64u);
  EXPECT_EQ(layout.cta_bytes, 64u + 384u);
  EXPECT_EQ(kernel.dynamic_shared_align, 64u);
}

TEST(DynamicSharedWindow, KernelStagesThroughTheAlignedWindow) {
  const Module module = load_ptx_file(kernel_ptx_path("dynamic_shared_align.ptx"));
  constexpr uint32_t kThreads = 48;
  KernelRun run(module, "stage_reversed", Dim3{2, 1, 1}, Dim3{kThreads, 1, 1}, kThreads * 8);
  std::vector<double> in(2 * kThreads);
  for (size_t i = 0; i < in.size(); ++i) in[i] = 0.25 * double(i) - 3.0;
  const uint64_t in_addr = run.buffer(in);
  const uint64_t out_addr = run.buffer(std::vector<double>(in.size(), 0.0));
  const uint64_t window_addr = run.buffer(std::vector<uint32_t>(2, 0xdeadbeef));
  run.param(0, in_addr);
  run.param(1, out_addr);
  run.param(2, window_addr);
  run.run();
  const std::vector<double> out = run.read<double>(out_addr, in.size());
  for (uint32_t cta = 0; cta < 2; ++cta) {
    for (uint32_t t = 0; t < kThreads; ++t) {
      ASSERT_EQ(out[cta * kThreads + t], in[cta * kThreads + (kThreads - 1 - t)] + double(t % 3 + 1)) << t;
    }
  }
  EXPECT_EQ(run.read<uint32_t>(window_addr, 2), (std::vector<uint32_t>{64, 64}));
}

TEST(DynamicSharedWindow, WithoutExternArraysTheWindowFollowsAt16) {
  const Module module = load_ptx_file(kernel_ptx_path("shared_wrap.ptx"));
  const SharedLayout layout = shared_layout(*module.find_entry("nw_tile", nullptr), 100);
  EXPECT_EQ(layout.static_bytes, 1156u + 1024u);
  EXPECT_EQ(layout.dynamic_offset, 2192u);
  EXPECT_EQ(layout.cta_bytes, 2292u);
}

// ---- 3. Static shared memory per kernel ----------------------------------------------------------------

uint32_t symbol_index(const Module& module, const std::string& name) {
  for (uint32_t i = 0; i < module.symbols.size(); ++i) {
    if (module.symbols[i].name == name) return i;
  }
  ADD_FAILURE() << "no symbol " << name;
  return kNoSym;
}

TEST(PerKernelShared, EachKernelIsChargedOnlyWhatItReaches) {
  const Module module = load_ptx_file(kernel_ptx_path("per_kernel_shared.ptx"));
  const Function& rotate = *module.find_entry("rotate_words", nullptr);
  const Function& reverse = *module.find_entry("reverse_words", nullptr);
  const Function& histogram = *module.find_entry("histogram", nullptr);
  const uint32_t stage = symbol_index(module, "_ZZ12rotate_wordsE5stage");
  const uint32_t mirror = symbol_index(module, "_ZZ13reverse_wordsE6mirror");
  const uint32_t bins = symbol_index(module, "histogram_bins");
  EXPECT_EQ(rotate.static_shared_bytes, 16384u);
  EXPECT_EQ(reverse.static_shared_bytes, 16384u);
  EXPECT_EQ(rotate.shared_offsets[stage], 0u);
  EXPECT_EQ(reverse.shared_offsets[mirror], 0u);
  EXPECT_EQ(rotate.shared_offsets[mirror], kNoSharedOffset);
  EXPECT_EQ(rotate.shared_offsets[bins], kNoSharedOffset);
  // histogram touches histogram_bins only inside the .func functions it calls.
  EXPECT_EQ(histogram.static_shared_bytes, 4096u);
  EXPECT_EQ(histogram.shared_offsets[bins], 0u);
  EXPECT_EQ(histogram.callees.size(), 3u);
  EXPECT_EQ(reachable_functions(module, uint32_t(&histogram - module.functions.data())).size(), 4u);
}

TEST(PerKernelShared, TwoKernelsWithTheirOwnSixteenKiBArraysRun) {
  const Module module = load_ptx_file(kernel_ptx_path("per_kernel_shared.ptx"));
  constexpr uint32_t kWords = 4096;
  std::vector<uint32_t> in(2 * kWords);
  for (uint32_t i = 0; i < in.size(); ++i) in[i] = i * 2654435761u;
  {
    KernelRun run(module, "rotate_words", Dim3{2, 1, 1}, Dim3{128, 1, 1});
    const uint64_t in_addr = run.buffer(in);
    const uint64_t out_addr = run.buffer(std::vector<uint32_t>(in.size(), 0));
    run.param(0, in_addr);
    run.param(1, out_addr);
    run.param(2, 1000);
    run.run();
    const std::vector<uint32_t> out = run.read<uint32_t>(out_addr, in.size());
    for (uint32_t c = 0; c < 2; ++c) {
      for (uint32_t i = 0; i < kWords; ++i)
        ASSERT_EQ(out[c * kWords + i], in[c * kWords + (i + 1000) % kWords]);
    }
  }
  {
    KernelRun run(module, "reverse_words", Dim3{2, 1, 1}, Dim3{128, 1, 1});
    const uint64_t in_addr = run.buffer(in);
    const uint64_t out_addr = run.buffer(std::vector<uint32_t>(in.size(), 0));
    run.param(0, in_addr);
    run.param(1, out_addr);
    run.run();
    const std::vector<uint32_t> out = run.read<uint32_t>(out_addr, in.size());
    for (uint32_t c = 0; c < 2; ++c) {
      for (uint32_t i = 0; i < kWords; ++i)
        ASSERT_EQ(out[c * kWords + i], in[c * kWords + kWords - 1 - i] * 2 + 1);
    }
  }
}

// The .func functions that reach histogram_bins run with the calling kernel's layout.
TEST(PerKernelShared, HistogramThroughDeviceFunctions) {
  const Module module = load_ptx_file(kernel_ptx_path("per_kernel_shared.ptx"));
  constexpr uint32_t kValues = 3000;
  std::vector<uint32_t> in(kValues);
  for (uint32_t i = 0; i < kValues; ++i) in[i] = i * 2654435761u >> 7;
  KernelRun run(module, "histogram", Dim3{1, 1, 1}, Dim3{96, 1, 1});
  const uint64_t in_addr = run.buffer(in);
  const uint64_t out_addr = run.buffer(std::vector<uint32_t>(1024, 0));
  run.param(0, in_addr);
  run.param(1, out_addr);
  run.param(2, kValues);
  run.run();
  std::vector<uint32_t> expected(1024, 0);
  for (uint32_t v : in) ++expected[v % 1024];
  EXPECT_EQ(run.read<uint32_t>(out_addr, 1024), expected);
}

// ---- 4. WARP_SZ ----------------------------------------------------------------------------------------

TEST(WarpSizeConstant, IsTheImmediate32) {
  const Module module = parse_ptx(R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry warp_size(.param .u64 out)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, WARP_SZ;
  rem.u32 %r3, %r1, WARP_SZ;
  add.s32 %r4, %r2, -WARP_SZ;
  mad.lo.s32 %r5, %r3, WARP_SZ, %r4;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4+WARP_SZ], %r5;
  ret;
}
)",
                                  "warp_size.ptx");
  KernelRun run(module, "warp_size", Dim3{1, 1, 1}, Dim3{40, 1, 1});
  const uint64_t out = run.buffer(std::vector<uint32_t>(48, 0));
  run.param(0, out);
  run.run();
  const std::vector<uint32_t> got = run.read<uint32_t>(out, 48);
  for (uint32_t i = 0; i < 8; ++i) EXPECT_EQ(got[i], 0u);  // [address + WARP_SZ] skips 8 words
  for (uint32_t t = 0; t < 40; ++t) EXPECT_EQ(got[t + 8], (t % 32) * 32) << t;
}

// ---- 6. Unsupported constructs refuse only the kernels that reach them --------------------------------

constexpr const char* kMixedModule = R"(.version 9.0
.target sm_75
.address_size 64
.func helper_unused()
{
  .reg .b32 %r<5>;
  vabsdiff4.u32.u32.u32.add %r1, %r2, %r3, %r4;
  ret;
}
.func helper_carry(.param .b32 x)
{
  .reg .b32 %r<3>;
  ld.param.u32 %r1, [x];
  add.cc.u32 %r2, %r1, %r1;
  ret;
}
.visible .entry good(.param .u64 out)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mul.lo.s32 %r2, %r1, 5;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r2;
  ret;
}
.visible .entry texture_user(.param .u64 out)
{
  .reg .f32 %f<5>;
  .reg .b64 %rd<2>;
  tex.level.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2}], %f3;
  ret;
}
.visible .entry calls_carry(.param .u64 out)
{
  .reg .b32 %r<2>;
  {
  .param .b32 param0;
  st.param.b32 [param0], %r1;
  call.uni helper_carry, (param0);
  }
  ret;
}
)";

TEST(PerKernelRefusal, OtherKernelsOfTheModuleLoadAndRun) {
  const Module module = parse_ptx(kMixedModule, "mixed.ptx");
  KernelRun run(module, "good", Dim3{1, 1, 1}, Dim3{8, 1, 1});
  const uint64_t out = run.buffer(std::vector<uint32_t>(8, 0));
  run.param(0, out);
  run.run();
  EXPECT_EQ(run.read<uint32_t>(out, 8), (std::vector<uint32_t>{0, 5, 10, 15, 20, 25, 30, 35}));
  EXPECT_TRUE(module.functions[0].unsupported.size() > 0);  // helper_unused: refused, reached by nobody
}

TEST(PerKernelRefusal, SelectingARefusedKernelGivesTheOriginalLineAndTheKernel) {
  const Module module = parse_ptx(kMixedModule, "mixed.ptx");
  KernelRun texture(module, "texture_user", Dim3{1, 1, 1}, Dim3{1, 1, 1});
  EXPECT_EQ(texture.error(),
            "mixed.ptx:34: tex.level (mipmap levels) is not supported: only plain tex fetches are; kernel "
            "texture_user cannot run (the module's other kernels are not affected)\n    "
            "tex.level.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2}], %f3;");
  KernelRun caller(module, "calls_carry", Dim3{1, 1, 1}, Dim3{1, 1, 1});
  EXPECT_EQ(
      caller.error(),
      "mixed.ptx:14: carry-chain instructions ('add.cc.u32') are not supported (in .func helper_carry); "
      "kernel calls_carry cannot run (the module's other kernels are not affected)\n    add.cc.u32 %r2, "
      "%r1, %r1;");
}

TEST(PerKernelRefusal, SyntaxErrorsStayModuleWide) {
  std::string broken = kMixedModule;
  broken.replace(broken.find("mul.lo.s32 %r2, %r1, 5;"), 23, "mul.lo.s32 %r2, %r1, 5");
  try {
    parse_ptx(broken, "mixed.ptx");
    FAIL() << "expected a PtxError";
  } catch (const PtxError& e) {
    EXPECT_EQ(e.line(), 24u);
    EXPECT_THAT(e.what(), HasSubstr("missing ';'"));
  }
  std::string undeclared = kMixedModule;
  undeclared.replace(undeclared.find("add.cc.u32 %r2"), 14, "add.cc.u32 %r9");
  EXPECT_THROW(parse_ptx(undeclared, "mixed.ptx"), PtxError);
}

}  // namespace
}  // namespace simtlm::ptx
