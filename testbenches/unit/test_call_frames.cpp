// Call-stack accounting (models/ptx/call_frames.hpp): a call is charged the frame the compiled code would
// hold (registers live across the call, the callee's __local_depot, bookkeeping), compared here with
// ptxas's frames, against CUDA's default cudaLimitStackSize of 1 KiB per thread.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "models/launch/launch.hpp"
#include "models/launch/session.hpp"
#include "models/ptx/call_frames.hpp"
#include "models/ptx/call_link.hpp"
#include "models/ptx/parser.hpp"
#include "testbenches/unit/ptx_file_launch.hpp"
#include "testbenches/unit/ptx_kernel_run.hpp"

namespace simtlm::ptx {
namespace {

using test::PtxFileLaunch;

const char* const kBisectPtx = "testbenches/ptx/call_frames.ptx";

// ptxas's frames, with the commands that printed them (CUDA 13.0; CI has no nvcc):
//   /usr/local/cuda/bin/ptxas -v -arch=sm_75 testbenches/ptx/call_frames.ptx -o /dev/null
//     "Function properties for _Z12sign_changesffi: 56 bytes stack frame, 32 bytes spill stores"
//   /usr/local/cuda/bin/ptxas -v -arch=sm_75 testbenches/ptx/device_calls_O3.ptx -o /dev/null
//     "Function properties for _Z3fibi: 24 bytes stack frame, 20 bytes spill stores"
constexpr uint32_t kPtxasSignChangesFrame = 56;
constexpr uint32_t kPtxasFibFrame = 24;
// The model's estimate is within one 8-byte step of ptxas's frame.
constexpr uint32_t kFrameTolerance = 8;

float cubic(float x) {
  return (x - 0.2f) * (x - 0.45f) * (x - 0.8f);
}
int sign_changes(float lo, float hi, int depth) {
  const bool change = (cubic(lo) < 0.0f) != (cubic(hi) < 0.0f);
  if (depth == 0 || !change) return change;
  const float mid = 0.5f * (lo + hi);
  return sign_changes(lo, mid, depth - 1) + sign_changes(mid, hi, depth - 1);
}

// The host twin with the model's accounting: the kernel's call and sign_changes' two calls are charged
// `charges` (in that order). Records the first call that does not fit in `limit`: its site (0 = the
// kernel's) and the bytes left; returns false once it has.
struct Overflow {
  int site = -1;
  uint32_t left = 0;
};
bool charged_sign_changes(float lo, float hi, int depth, uint32_t used, const std::vector<uint32_t>& charges,
                          uint32_t limit, Overflow& overflow) {
  const bool change = (cubic(lo) < 0.0f) != (cubic(hi) < 0.0f);
  if (depth == 0 || !change) return true;
  const float mid = 0.5f * (lo + hi);
  const float halves[2][2] = {{lo, mid}, {mid, hi}};
  for (int site = 1; site <= 2; ++site) {
    if (used + charges[site] > limit) {
      overflow = Overflow{site, limit - used};
      return false;
    }
    if (!charged_sign_changes(halves[site - 1][0], halves[site - 1][1], depth - 1, used + charges[site],
                              charges, limit, overflow))
      return false;
  }
  return true;
}

uint64_t float_bits(float f) {
  uint32_t bits = 0;
  std::memcpy(&bits, &f, 4);
  return bits;
}

uint32_t function_index(const Module& m, const std::string& name) {
  return m.function_index.at(name);
}

std::vector<std::string> register_names(const Function& fn, const std::vector<uint32_t>& regs) {
  std::vector<std::string> names;
  for (uint32_t r : regs) names.push_back(fn.regs.at(r).name);
  return names;
}

// PCs of the calls in fn's code, in order.
std::vector<uint32_t> call_pcs(const Function& fn) {
  std::vector<uint32_t> pcs;
  for (uint32_t pc = 0; pc < fn.code.size(); ++pc) {
    if (fn.code[pc].op == Op::call) pcs.push_back(pc);
  }
  return pcs;
}

TEST(CallFrames, LiveRegistersAcrossEachCallOfTheBisection) {
  const Module m = load_ptx_file(std::string(SIMTLM_SOURCE_DIR) + "/" + kBisectPtx);
  const Function& f = m.functions[function_index(m, "_Z12sign_changesffi")];
  const std::vector<std::vector<uint32_t>> live = live_across_calls(f);
  const std::vector<uint32_t> pcs = call_pcs(f);
  ASSERT_EQ(pcs.size(), 2u);
  // After the first call: hi, mid and depth - 1 for the second; after the second: the first's result.
  EXPECT_EQ(register_names(f, live[pcs[0]]), (std::vector<std::string>{"%f2", "%f15", "%r7"}));
  EXPECT_EQ(register_names(f, live[pcs[1]]), (std::vector<std::string>{"%r8"}));
  for (uint32_t pc = 0; pc < f.code.size(); ++pc) {
    if (f.code[pc].op != Op::call) {
      EXPECT_TRUE(live[pc].empty()) << pc;
    }
  }
  EXPECT_EQ(local_depot_bytes(m, function_index(m, "_Z12sign_changesffi")), 16u);  // float ends[4]
  // The kernel keeps the thread index and the output pointer across its call.
  const Function& k = m.functions[function_index(m, "_Z6bisectPifi")];
  EXPECT_EQ(register_names(k, live_across_calls(k)[call_pcs(k).at(0)]),
            (std::vector<std::string>{"%r5", "%rd2"}));
}

TEST(CallFrames, ChargesAreLiveRegistersDepotAndBookkeeping) {
  const Module m = load_ptx_file(std::string(SIMTLM_SOURCE_DIR) + "/" + kBisectPtx);
  const Function& k = *m.find_entry("bisect", nullptr);
  ASSERT_EQ(k.call_sites.size(), 3u);
  // Linked call sites in code order: the kernel's, then sign_changes' two.
  std::vector<uint32_t> charges;
  for (uint32_t pc : call_pcs(k)) charges.push_back(k.call_sites[k.code[pc].call_site].frame_bytes);
  const uint32_t depot = 16;
  EXPECT_EQ(charges, (std::vector<uint32_t>{(4 + 8 + depot + kCallFrameBookkeepingBytes + 7) / 8 * 8,
                                            (3 * 4 + depot + kCallFrameBookkeepingBytes + 7) / 8 * 8,
                                            (4 + depot + kCallFrameBookkeepingBytes + 7) / 8 * 8}));
  EXPECT_EQ(charges, (std::vector<uint32_t>{48, 48, 40}));
}

TEST(CallFrames, FrameEstimatesAreWithinOneStepOfPtxas) {
  const Module bisect = load_ptx_file(std::string(SIMTLM_SOURCE_DIR) + "/" + kBisectPtx);
  const uint32_t sign_changes_frame = frame_estimate(bisect, function_index(bisect, "_Z12sign_changesffi"));
  EXPECT_EQ(sign_changes_frame, 48u);
  EXPECT_LE(kPtxasSignChangesFrame - sign_changes_frame, kFrameTolerance);
  const Module calls = load_ptx_file(std::string(SIMTLM_SOURCE_DIR) + "/testbenches/ptx/device_calls_O3.ptx");
  const uint32_t fib_frame = frame_estimate(calls, function_index(calls, "_Z3fibi"));
  EXPECT_EQ(fib_frame, 24u);  // 4 bytes live across either call + 16
  EXPECT_EQ(fib_frame, kPtxasFibFrame);
}

// 17 and 18 nested calls: 18 of ptxas's 56-byte frames (1,008 bytes) fit the 1,024 of CUDA's default, so a
// GPU runs this launch, and so must the model (the old 8-bytes-per-register records allowed 10 in 4,096
// bytes).
TEST(CallFrames, RecursionAGpuRunsFitsTheDefaultStack) {
  constexpr int kDepth = 16;
  ASSERT_LE(kPtxasSignChangesFrame * (kDepth + 2), kCallStackBytesPerThread);
  PtxFileLaunch l(kBisectPtx, "bisect", Dim3{1, 1, 1}, Dim3{64, 1, 1}, {64 * 4}, {float_bits(-1.0f), kDepth});
  EXPECT_EQ(l.module.find_entry("bisect", nullptr)->call_stack_bytes, 1024u);
  l.run();
  const auto out = l.read<int32_t>(0);
  for (int t = 0; t < 64; ++t)
    EXPECT_EQ(out[t], sign_changes(-1.0f, 1.0f + 0.125f * float(t), kDepth + (t & 1))) << t;
}

// Thread 0 bisects [-1, 1] as deep as the charges allow: deep enough fits, one level deeper stops at the
// first call the host twin's accounting says does not fit, with the exact message.
TEST(CallFrames, OverflowAtTheDepthTheChargesAllow) {
  const Module m = load_ptx_file(std::string(SIMTLM_SOURCE_DIR) + "/" + kBisectPtx);
  const Function& k = *m.find_entry("bisect", nullptr);
  const std::vector<uint32_t> pcs = call_pcs(k);
  std::vector<uint32_t> charges;
  for (uint32_t pc : pcs) charges.push_back(k.call_sites[k.code[pc].call_site].frame_bytes);
  int deepest = 0;  // the largest depth whose bisection fits
  Overflow overflow;
  for (int depth = 0; depth < 64; ++depth) {
    Overflow o;
    if (!charged_sign_changes(-1.0f, 1.0f, depth, charges[0], charges, 1024, o)) {
      overflow = o;
      break;
    }
    deepest = depth;
  }
  EXPECT_EQ(deepest, 22);  // 23 nested calls: the kernel's 48 bytes and 22 of 40 or 48
  ASSERT_GE(overflow.site, 1);
  PtxFileLaunch fits(kBisectPtx, "bisect", Dim3{1, 1, 1}, Dim3{1, 1, 1}, {4},
                     {float_bits(-1.0f), uint64_t(deepest)});
  fits.run();
  EXPECT_EQ(fits.read<int32_t>(0)[0], sign_changes(-1.0f, 1.0f, deepest));
  PtxFileLaunch l(kBisectPtx, "bisect", Dim3{1, 1, 1}, Dim3{1, 1, 1}, {4},
                  {float_bits(-1.0f), uint64_t(deepest + 1)});
  const uint32_t pc = pcs.at(overflow.site);
  EXPECT_EQ(l.error(),
            fmt::format("call stack overflow calling _Z12sign_changesffi: a call record of {} bytes does not "
                        "fit in the {} bytes left of the per-thread call stack of 1024 bytes, in warp 0 at "
                        "kernel _Z6bisectPifi, CTA (0,0,0), thread (0,0,0), PC {} (PTX line {}, "
                        "call_frames.cu:21)",
                        charges[overflow.site], overflow.left, pc, k.code[pc].line));
}

// The launch file's limit_stack_size is cudaDeviceSetLimit(cudaLimitStackSize): the bisection that overflows
// CUDA's default runs with 2,048 bytes.
TEST(CallFrames, LaunchFileLimitLetsTheDeepBisectionRun) {
  const std::string path = std::string(SIMTLM_SOURCE_DIR) + "/testbenches/launch/call_frames_deep.yaml";
  std::string e;
  try {
    launch::Session(launch::load_launch(path), {}).run();
  } catch (const std::exception& error) {
    e = error.what();
  }
  EXPECT_NE(e.find("call stack overflow calling _Z12sign_changesffi: a call record of "
                   "48 bytes does not fit in the 16 bytes left of the per-thread call stack of 1024 bytes"),
            std::string::npos)
      << e;
  launch::Session session(launch::load_launch(path, {"limit_stack_size=2048"}), {});
  const launch::SessionResult r = session.run();
  int32_t out = 0;
  std::memcpy(&out, r.buffers.at("out").data(), 4);
  EXPECT_EQ(out, sign_changes(-1.0f, 1.0f, 23));
  EXPECT_EQ(session.kernel().call_stack_bytes, 2048u);
}

// A kernel with `regs` .b32 registers whose first `live` are all read after each of `calls` calls of a
// trivial .func, with `padding` more instructions: sized to pass or pass over the liveness bounds.
std::string liveness_kernel(uint32_t regs, uint32_t live, uint32_t calls, uint32_t padding) {
  std::string ptx = ".version 7.0\n.target sm_75\n.address_size 64\n.func leaf()\n{\nret;\n}\n";
  ptx += ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<" + std::to_string(regs) + ">;\n";
  for (uint32_t r = 0; r < live; ++r) ptx += fmt::format("mov.u32 %r{}, {};\n", r, r);
  for (uint32_t c = 0; c < calls; ++c) ptx += "call.uni leaf, ();\n";
  for (uint32_t p = 0; p < padding; ++p) ptx += "add.s32 %r0, %r0, 1;\n";
  for (uint32_t r = 1; r < live; ++r) ptx += fmt::format("add.s32 %r0, %r0, %r{};\n", r);
  return ptx + "ret;\n}\n";
}

std::string load_error(const std::string& ptx) {
  try {
    parse_ptx(ptx, "liveness.ptx");
  } catch (const PtxError& e) {
    return e.what();
  }
  return "";
}

// A module whose liveness analysis or saved registers would explode is not loaded, with the limit named.
TEST(CallFrames, LivenessPastItsBoundsRefusesTheModule) {
  // 60,000 registers (938 words) over the padding + 3 instructions (+ 1): past 2^24 words with 17,887.
  EXPECT_EQ(load_error(liveness_kernel(60000, 1, 1, 17000)), "");
  const std::string words = load_error(liveness_kernel(60000, 1, 1, 17887));
  EXPECT_NE(
      words.find(fmt::format("liveness.ptx:8: the liveness analysis of k (instructions x registers / 64) "
                             "is {}, over simtlm's limit of 16777216 (docs/reliability.md)",
                             (17887 + 3 + 1) * 938)),
      std::string::npos)
      << words;
  // 4,096 registers live across each of 4,097 calls: 16,781,312 saved registers, past 2^24.
  const Module fits = parse_ptx(liveness_kernel(4096, 4096, 4096, 0), "liveness.ptx");
  EXPECT_EQ(fits.find_entry("k", nullptr)->call_sites.at(4095).saved_regs.size(), 4096u);
  const std::string saved = load_error(liveness_kernel(4096, 4096, 4097, 0));
  EXPECT_NE(saved.find("liveness.ptx:8: the registers live across the calls of kernel k with its callees is "
                       "16777217, over simtlm's limit of 16777216"),
            std::string::npos)
      << saved;
}

// A recursive function with a 30,000-byte parameter: each call is charged only 16 bytes, but the model's
// record keeps the callee's whole frame region (its own and its call's 30,004-byte .params); 17 of them pass
// the model's bound of 1 MiB per thread long before the 1,024 charged bytes do, a located error.
TEST(CallFrames, TheModelsOwnRecordsAreBoundedPerThread) {
  // The call sequence, passing `arg` and receiving into `result`.
  auto call = [](const char* arg, const char* result) {
    return fmt::format(
        "{{\n.param .align 4 .b8 a0[30000];\n.param .b32 a1;\n.param .b32 rv;\nst.param.b32 [a1], {};\n"
        "call.uni (rv), deep, (a0, a1);\nld.param.b32 {}, [rv];\n}}\n",
        arg, result);
  };
  const std::string ptx =
      ".version 7.0\n.target sm_75\n.address_size 64\n"
      ".func (.param .b32 r) deep(.param .align 4 .b8 big[30000], .param .b32 n)\n{\n"
      ".reg .b32 %r<4>;\n.reg .pred %p<2>;\nld.param.u32 %r1, [n];\nsetp.eq.s32 %p1, %r1, 0;\n"
      "mov.u32 %r3, 0;\n@%p1 bra DONE;\nsub.s32 %r2, %r1, 1;\n" +
      call("%r2", "%r3") + "DONE:\nst.param.b32 [r], %r3;\nret;\n}\n" +
      ".visible .entry k(.param .u32 n)\n{\n.reg .b32 %r<3>;\nld.param.u32 %r1, [n];\n" + call("%r1", "%r2") +
      "ret;\n}\n";
  const Module m = parse_ptx(ptx, "records.ptx");
  const Function& k = *m.find_entry("k", nullptr);
  const std::vector<uint32_t> pcs = call_pcs(k);
  ASSERT_EQ(pcs.size(), 2u);
  const CallSite& inner = k.call_sites[k.code[pcs[1]].call_site];
  EXPECT_EQ(inner.frame_bytes, 16u);  // nothing live across the call, no depot
  const uint32_t record = call_record_bytes(inner, k.linked_callees.at(inner.linked));
  EXPECT_GE(record, 60008u);
  const uint32_t fit = kMaxCallRecordBytesPerThread / record;  // records that fit; n makes n + 1 calls
  {
    test::KernelRun run(m, "k", Dim3{1, 1, 1}, Dim3{1, 1, 1});
    run.param(0, fit - 1);
    EXPECT_EQ(run.error(), "");
  }
  test::KernelRun run(m, "k", Dim3{1, 1, 1}, Dim3{1, 1, 1});
  run.param(0, fit);
  EXPECT_EQ(run.error(),
            fmt::format("calling deep: the model's saved state for the thread's active calls would pass "
                        "1048576 bytes (frames with large .param regions) at kernel k, CTA (0,0,0), thread "
                        "(0,0,0), PC {} (PTX line {})",
                        pcs[1], k.code[pcs[1]].line));
}

}  // namespace
}  // namespace simtlm::ptx
