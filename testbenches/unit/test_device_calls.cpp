// Non-inlined .func calls on the functional runner: nvcc's -O3 __noinline__ and -O0 device code
// (testbenches/ptx/device_calls.cu) against host values, reconvergence inside a callee and around a
// divergent call (hand-written PTX with exact instruction counts), and the call-stack overflow error.
#include <gtest/gtest.h>

#include "models/ptx/call_link.hpp"
#include "testbenches/ptx/device_calls_host.hpp"
#include "testbenches/unit/ptx_file_launch.hpp"

namespace simtlm::ptx {
namespace {

using simtlm::test::host_fib;
using test::PtxFileLaunch;

constexpr uint32_t kThreads = 128;  // two CTAs of two warps

void expect_device_calls_outputs(const std::string& ptx) {
  SCOPED_TRACE(ptx);
  PtxFileLaunch l(ptx, "device_calls", Dim3{2, 1, 1}, Dim3{64, 1, 1},
                  {kThreads * 4, kThreads * 4, kThreads * 4, kThreads * 4, kThreads * 4});
  const RunStats stats = l.run();
  const auto fib = l.read<int32_t>(0);
  const auto score = l.read<float>(1);
  const auto squares = l.read<int32_t>(2);
  const auto depth = l.read<int32_t>(3);
  const auto powers = l.read<int32_t>(4);
  const simtlm::test::DeviceCallsOutputs expected = simtlm::test::device_calls_expected(int(kThreads));
  for (size_t t = 0; t < kThreads; ++t) {
    EXPECT_EQ(fib[t], expected.fib[t]) << t;
    EXPECT_EQ(score[t], expected.score[t]) << t;  // exact: same IEEE operations in order
    EXPECT_EQ(squares[t], expected.squares[t]) << t;
    EXPECT_EQ(depth[t], expected.depth[t]) << t;
    EXPECT_EQ(powers[t], expected.powers[t]) << t;
  }
  EXPECT_EQ(stats.ctas, 2u);
  EXPECT_EQ(stats.warps, 4u);
}

TEST(DeviceCalls, NoinlineO3OutputsEqualHost) {
  expect_device_calls_outputs("testbenches/ptx/device_calls_O3.ptx");
}

TEST(DeviceCalls, DeviceO0OutputsEqualHost) {
  expect_device_calls_outputs("testbenches/ptx/device_calls_O0.ptx");
}

TEST(DeviceCalls, LinkingAppendsEveryReachedFunctionOnce) {
  const Module m = load_ptx_file(std::string(SIMTLM_SOURCE_DIR) + "/testbenches/ptx/device_calls_O0.ptx");
  std::string error;
  const Function* k = m.find_entry("device_calls", &error);
  ASSERT_NE(k, nullptr) << error;
  // The kernel's callees in the order first called, then square (called by sum_squares).
  ASSERT_EQ(k->linked_callees.size(), 6u);
  const char* names[] = {"_Z3fibi",         "_Z12window_score6Windowi", "_Z11sum_squaresii",
                         "_Z10tree_depthi", "_Z11fill_powersPiii",      "_Z6squarei"};
  for (size_t i = 0; i < 6; ++i) {
    const LinkedCallee& c = k->linked_callees[i];
    EXPECT_EQ(m.functions[c.function].name, names[i]);
    EXPECT_EQ(c.end_pc - c.entry_pc, m.functions[c.function].code.size());
    EXPECT_EQ(c.reg_count, m.functions[c.function].regs.size());
    EXPECT_EQ(c.params.size(), m.functions[c.function].params.size());
    EXPECT_EQ(c.returns.size(), i == 4 ? 0u : 1u);  // fill_powers returns nothing
  }
  EXPECT_EQ(k->call_stack_bytes, kCallStackBytesPerThread);
  EXPECT_EQ(k->regs.at(k->call_stack_pointer).name, "%__call_stack_pointer");
  // The .funcs themselves are untouched.
  const Function& fib = m.functions[m.function_index.at("_Z3fibi")];
  EXPECT_TRUE(fib.linked_callees.empty());
}

TEST(DeviceCalls, DeepRecursionThatFitsEqualsHost) {
  PtxFileLaunch l("testbenches/ptx/device_calls_O3.ptx", "fib_of", Dim3{1, 1, 1}, Dim3{32, 1, 1}, {32 * 4},
                  {18});
  l.run();
  const auto out = l.read<int32_t>(0);
  for (int t = 0; t < 32; ++t) EXPECT_EQ(out[t], host_fib(18 + (t & 1))) << t;
}

TEST(DeviceCalls, StackOverflowNamesKernelCtaWarpPcAndFunction) {
  PtxFileLaunch l("testbenches/ptx/device_calls_O0.ptx", "fib_of", Dim3{1, 1, 1}, Dim3{64, 1, 1}, {64 * 4},
                  {100000});
  const std::string e = l.error();
  for (const char* part :
       {"call stack overflow calling _Z3fibi: a call record of ", "per-thread call stack of 1024 bytes",
        "in warp 0 at kernel _Z6fib_ofPii, CTA (0,0,0), thread (0,0,0), PC ", "device_calls.cu:18)"}) {
    EXPECT_NE(e.find(part), std::string::npos) << "missing '" << part << "' in: " << e;
  }
}

constexpr const char* kHeader = ".version 7.0\n.target sm_75\n.address_size 64\n";

struct TextLaunch {
  Module module;
  GlobalMemory global;
  LaunchContext launch;
  uint64_t out = 0;
  explicit TextLaunch(const std::string& body) : module(parse_ptx(std::string(kHeader) + body, "t.ptx")) {
    std::string error;
    launch.module = &module;
    launch.kernel = module.find_entry("k", &error);
    launch.block = Dim3{32, 1, 1};
    launch.global = &global;
    launch.symbol_address.assign(module.symbols.size(), 0);
    out = global.allocate(32 * 4, 256, "out");
    launch.param_buffer.assign(launch.kernel->param_bytes, 0);
    std::memcpy(launch.param_buffer.data(), &out, 8);
  }
  RunStats run() {
    Cfg cfg(*launch.kernel);
    return FunctionalRunner(launch, cfg, {}).run();
  }
  std::vector<uint32_t> result() const {
    std::vector<uint32_t> v(32);
    global.read(out, v.data(), 32 * 4);
    return v;
  }
};

// The callee's branch reconverges only at its rets: each path returns on its own and the lanes meet again
// at the return address, so the code after the call runs once for the whole warp. Odd lanes call only.
constexpr const char* kEarlyReturn = R"(
.func (.param .b32 result) early(.param .b32 x)
{
  .reg .pred %p<2>;
  .reg .b32 %r<3>;
  ld.param.u32 %r1, [x];
  setp.lt.u32 %p1, %r1, 16;
  @%p1 bra $SMALL;
  mul.lo.s32 %r2, %r1, 3;
  st.param.b32 [result], %r2;
  ret;
$SMALL:
  add.s32 %r2, %r1, 100;
  st.param.b32 [result], %r2;
  ret;
}
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, 7;
  and.b32 %r3, %r1, 1;
  setp.eq.u32 %p1, %r3, 1;
  {
  .param .b32 a;
  .param .b32 b;
  st.param.b32 [a], %r1;
  @%p1 call.uni (b), early, (a);
  @%p1 ld.param.b32 %r2, [b];
  }
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
)";

TEST(DeviceCalls, LanesReturningOnDifferentPathsMeetAtTheReturnAddress) {
  TextLaunch l(kEarlyReturn);
  const RunStats s = l.run();
  const auto out = l.result();
  for (uint32_t t = 0; t < 32; ++t) {
    const uint32_t expected = t % 2 == 0 ? 7 : (t < 16 ? t + 100 : 3 * t);
    EXPECT_EQ(out[t], expected) << t;
  }
  // Kernel: 12 instructions, all with 32 lanes. Callee (16 odd lanes): 3 before the branch, then 3 on
  // each path with 8 lanes.
  EXPECT_EQ(s.warp_instructions, 12u + 3 + 3 + 3);
  EXPECT_EQ(s.thread_instructions, 12u * 32 + 3 * 16 + 3 * 8 + 3 * 8);
  EXPECT_EQ(s.branches, 1u);
  EXPECT_EQ(s.divergent_branches, 1u);
  // Bottom entry, the call frame (waiting at the virtual exit) and the two paths of the callee's branch.
  EXPECT_EQ(s.max_stack_depth, 4u);
}

TEST(DeviceCalls, CallToAFunctionWithoutBodyRefusesTheKernel) {
  const std::string body = R"(
.extern .func (.param .b32 r) missing(.param .b32 x);
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<2>;
  {
  .param .b32 a;
  .param .b32 b;
  st.param.b32 [a], %r1;
  call.uni (b), missing, (a);
  }
  ret;
}
)";
  const Module m = parse_ptx(std::string(kHeader) + body, "t.ptx");
  LaunchContext launch;
  launch.module = &m;
  launch.kernel = &m.functions.at(0);
  try {
    Executor executor(launch);
    FAIL() << "no error";
  } catch (const PtxError& e) {
    EXPECT_EQ(std::string(e.what()),
              "t.ptx:13: call to .func missing, which has no body; kernel k cannot run (the module's other "
              "kernels are not affected)");
  }
}

}  // namespace
}  // namespace simtlm::ptx
