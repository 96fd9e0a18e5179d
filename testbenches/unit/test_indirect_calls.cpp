// Indirect calls (issue 32, point 3) on the functional runner: calls through function-pointer tables in
// .global initialisers, virtual functions, tables built at run time in shared, local and global memory,
// recursion through a pointer (testbenches/ptx/indirect_calls.cu against the host twins), the serialization
// of a divergent call per target, and the errors and refusals of calls that cannot run.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "models/ptx/call_link.hpp"
#include "models/ptx/kernel_layout.hpp"
#include "testbenches/ptx/indirect_calls_host.hpp"
#include "testbenches/unit/ptx_file_launch.hpp"

namespace simtlm::ptx::indirect_calls_test {
namespace {

namespace host = simtlm::test::indirect;
using test::KernelRun;
using test::PtxFileLaunch;

const std::string kPtx = "testbenches/ptx/indirect_calls.ptx";
constexpr int kN = 96;  // two CTAs of 64 threads; the last 32 threads fail the bounds check

std::string fmt_hex(uint64_t value) {
  std::ostringstream text;
  text << "0x" << std::hex << value;
  return text.str();
}

void expect_contains(const std::string& text, const std::vector<std::string>& parts) {
  for (const std::string& part : parts)
    EXPECT_NE(text.find(part), std::string::npos) << part << " in: " << text;
}

TEST(IndirectCalls, TableInAGlobalInitializerHoldsFunctionAddresses) {
  PtxFileLaunch l(kPtx, "table_call", Dim3{2, 1, 1}, Dim3{64, 1, 1}, {kN * 4}, {kN}, true);
  l.run();
  EXPECT_EQ(l.read<int32_t>(0), host::table_call(kN));
  // The table's elements are the tagged values of its four functions, in the order their addresses appear.
  const Module& m = l.module;
  const std::vector<std::string> names = {"_Z5twicei", "_Z6squarei", "_Z6negatei", "_Z13collatz_stepsi"};
  const Symbol* table = nullptr;
  for (const Symbol& s : m.symbols)
    if (s.name == "table") table = &s;
  ASSERT_NE(table, nullptr);
  ASSERT_EQ(table->init.size(), 32u);
  for (uint32_t k = 0; k < 4; ++k) {
    uint64_t value = 0;
    std::memcpy(&value, table->init.data() + 8 * k, 8);
    const uint32_t id = function_address_id(value, m.function_addresses.size());
    ASSERT_NE(id, kNoTarget) << k;
    EXPECT_EQ(m.function_addresses[id].name, names[k]);
    EXPECT_EQ(value, function_address_value(id));
  }
  EXPECT_TRUE(m.unsupported_symbols.empty());
}

// Lanes k, k + 4, ... of a warp call table[k]: the call runs once per target, the group of the lowest lane
// first, each with its lanes only, and the warp reconverges at the instruction after the call.
TEST(IndirectCalls, ADivergentCallRunsEachTargetWithItsLanesThenReconverges) {
  PtxFileLaunch l(kPtx, "table_call", Dim3{1, 1, 1}, Dim3{32, 1, 1}, {32 * 4}, {32}, true);
  const Function& k = l.kernel_run.kernel();
  uint32_t call_pc = kNoTarget;
  for (uint32_t pc = 0; pc < k.code.size() && call_pc == kNoTarget; ++pc)
    if (is_indirect_call(k, pc)) call_pc = pc;
  ASSERT_NE(call_pc, kNoTarget);
  std::map<uint32_t, std::string> entry_names;  // entry PC -> function
  for (const LinkedCallee& c : k.linked_callees)
    entry_names[c.entry_pc] = l.module.functions[c.function].name;
  std::vector<std::pair<std::string, LaneMask>> order;  // callee entries and the PC after the call
  RunOptions options;
  options.observer = [&](const WarpContext&, uint32_t pc, LaneMask mask, const WarpStep&) {
    if (entry_names.count(pc)) order.emplace_back(entry_names[pc], mask);
    if (pc == call_pc + 1) order.emplace_back("after the call", mask);
  };
  l.run(options);
  const std::vector<std::pair<std::string, LaneMask>> expected = {{"_Z5twicei", 0x11111111u},
                                                                  {"_Z6squarei", 0x22222222u},
                                                                  {"_Z6negatei", 0x44444444u},
                                                                  {"_Z13collatz_stepsi", 0x88888888u},
                                                                  {"after the call", 0xffffffffu}};
  EXPECT_EQ(order, expected);
  EXPECT_EQ(l.read<int32_t>(0), host::table_call(32));
}

TEST(IndirectCalls, VirtualFunctionsOfObjectsBuiltInTheKernel) {
  PtxFileLaunch l(kPtx, "virtual_shapes", Dim3{2, 1, 1}, Dim3{64, 1, 1}, {kN * 4}, {kN}, true);
  l.run();
  EXPECT_EQ(l.read<int32_t>(0), host::virtual_shapes(kN));
  // The deleting destructors call free, which has no body: the kernel loads, those cannot be called.
  const Function& k = l.kernel_run.kernel();
  EXPECT_EQ(kernel_refusal(l.module, k), std::nullopt);
  size_t cannot_run = 0;
  for (size_t id = 0; id < k.indirect_targets.size(); ++id) {
    if (k.indirect_targets[id].linked != kNoTarget) continue;
    ++cannot_run;
    EXPECT_NE(l.module.function_addresses[id].name.find("D0Ev"), std::string::npos);
    EXPECT_NE(k.indirect_targets[id].why_not.find("call to .func free, which has no body"),
              std::string::npos);
  }
  EXPECT_EQ(cannot_run, 4u);  // Shape, Square, Rect and Tri
}

TEST(IndirectCalls, TablesBuiltAtRunTimeInSharedLocalAndGlobalMemoryRoundTrip) {
  PtxFileLaunch l(kPtx, "runtime_tables", Dim3{2, 1, 1}, Dim3{64, 1, 1}, {kN * 4, kN * 4}, {kN}, true);
  l.run();
  const host::RuntimeTables expected = host::runtime_tables(kN);
  EXPECT_EQ(l.read<int32_t>(0), expected.out);
  EXPECT_EQ(l.read<int32_t>(1), expected.same);
}

TEST(IndirectCalls, RecursionThroughAPointerIsChargedToTheCallStack) {
  PtxFileLaunch l(kPtx, "pointer_recursion", Dim3{2, 1, 1}, Dim3{64, 1, 1}, {kN * 4}, {kN, 0}, true);
  l.run();
  EXPECT_EQ(l.read<int32_t>(0), host::pointer_recursion(kN, 0));
  PtxFileLaunch deep(kPtx, "pointer_recursion", Dim3{1, 1, 1}, Dim3{32, 1, 1}, {32 * 4}, {32, 100000}, true);
  expect_contains(deep.error(),
                  {"call stack overflow calling _Z9depth_sumi", "per-thread call stack of 1024 bytes",
                   "kernel pointer_recursion, CTA (0,0,0)", "indirect_calls.cu:"});
}

TEST(IndirectCalls, ACallThroughANonFunctionAddressNamesKernelCtaThreadAndPc) {
  for (const uint64_t bits : {uint64_t{0x1234}, kFunctionWindow + 8, kFunctionWindow + 4096 * 16}) {
    PtxFileLaunch l(kPtx, "call_raw", Dim3{1, 1, 1}, Dim3{32, 1, 1}, {32 * 4}, {bits, 5}, true);
    expect_contains(l.error(),
                    {"indirect call through %rd", fmt_hex(bits), "which is not the address of a function",
                     "kernel call_raw, CTA (0,0,0), thread (5,0,0), PC ", "PTX line ", "indirect_calls.cu:"});
  }
  // A data address (the output buffer) is not a function either; without a bad lane the kernel runs.
  PtxFileLaunch data(kPtx, "call_raw", Dim3{1, 1, 1}, Dim3{32, 1, 1}, {32 * 4}, {0, 40}, true);
  data.kernel_run.param(1, data.buffers[0]);
  data.kernel_run.param(2, 3);
  expect_contains(data.error(), {"which is not the address of a function", "thread (3,0,0)"});
  PtxFileLaunch good(kPtx, "call_raw", Dim3{1, 1, 1}, Dim3{32, 1, 1}, {32 * 4}, {0x1234, 40}, true);
  good.run();
  std::vector<int32_t> expected(32);
  for (int t = 0; t < 32; ++t) expected[size_t(t)] = host::table_op(t % 4, t);
  EXPECT_EQ(good.read<int32_t>(0), expected);
}

TEST(IndirectCalls, ACalleeThatCannotRunFailsOnlyWhenCalled) {
  PtxFileLaunch l(kPtx, "delete_shape", Dim3{1, 1, 1}, Dim3{32, 1, 1}, {32 * 32}, {}, true);
  EXPECT_EQ(kernel_refusal(l.module, l.kernel_run.kernel()), std::nullopt);
  expect_contains(l.error(),
                  {"indirect call of _ZN6SquareD0Ev, which cannot run: call to .func free, which has "
                   "no body",
                   "kernel delete_shape, CTA (0,0,0), thread (0,0,0)"});
}

// A module with two functions in a table and a kernel calling table[which] with a (b32) -> b32 prototype;
// `call` replaces the call instruction, `extra` adds module-level declarations.
std::string table_module(
    const std::string& call = "call (r0), %rd5, (p0), proto;", const std::string& extra = "",
    const std::string& prototype = "proto : .callprototype (.param .b32 _) _ (.param .b32 _);") {
  return ".version 9.0\n.target sm_75\n.address_size 64\n"
         ".func (.param .b32 r) inc(.param .b32 a);\n"
         ".func (.param .b64 r) wide(.param .b64 a);\n"
         ".global .align 8 .u64 ops[2] = {inc, wide};\n" +
         extra +
         ".func (.param .b32 r) inc(.param .b32 a)\n{\n.reg .b32 %r<3>;\nld.param.u32 %r1, [a];\n"
         "add.s32 %r2, %r1, 1;\nst.param.b32 [r], %r2;\nret;\n}\n"
         ".func (.param .b64 r) wide(.param .b64 a)\n{\n.reg .b64 %rd<3>;\nld.param.u64 %rd1, [a];\n"
         "st.param.b64 [r], %rd1;\nret;\n}\n"
         ".visible .entry k(.param .u64 out, .param .u32 which)\n{\n.reg .b32 %r<6>;\n.reg .b64 %rd<8>;\n"
         "ld.param.u64 %rd1, [out];\nld.param.u32 %r1, [which];\nmul.wide.u32 %rd2, %r1, 8;\n"
         "mov.u64 %rd3, ops;\nadd.s64 %rd4, %rd3, %rd2;\nld.global.u64 %rd5, [%rd4];\nmov.u32 %r2, %tid.x;\n"
         "{\n.param .b32 p0;\n.param .b32 r0;\nst.param.b32 [p0], %r2;\n" +
         prototype + "\n" + call +
         "\nld.param.b32 %r3, [r0];\n}\n"
         "cvta.to.global.u64 %rd6, %rd1;\nmul.wide.u32 %rd7, %r2, 4;\nadd.s64 %rd6, %rd6, %rd7;\n"
         "st.global.u32 [%rd6], %r3;\nret;\n}\n";
}

std::string run_table_module(const std::string& text, uint32_t which, std::vector<int32_t>* out = nullptr) {
  const Module m = parse_ptx(text, "table.ptx");
  KernelRun run(m, "k", Dim3{1, 1, 1}, Dim3{32, 1, 1});
  run.place_variables();
  const uint64_t buffer = run.buffer(std::vector<int32_t>(32, 0));
  run.param(0, buffer);
  run.param(1, which);
  const std::string error = run.error();
  if (out) *out = run.read<int32_t>(buffer, 32);
  return error;
}

std::string refusal_of(const std::string& text) {
  const Module m = parse_ptx(text, "table.ptx");
  const std::optional<PtxError> refusal = kernel_refusal(m, m.functions.at(m.function_index.at("k")));
  return refusal ? refusal->what() : "";
}

TEST(IndirectCalls, HandWrittenTableCallRunsAndAMismatchedCalleeFailsAtTheCall) {
  std::vector<int32_t> out;
  EXPECT_EQ(run_table_module(table_module(), 0, &out), "");
  for (int t = 0; t < 32; ++t) EXPECT_EQ(out[size_t(t)], t + 1);
  // wide takes and returns 8 bytes; the call's prototype passes and receives 4.
  expect_contains(
      run_table_module(table_module(), 1),
      {"indirect call of wide through a prototype that does not match it: the call passes 4 bytes "
       "and receives 4 bytes; wide takes 8 bytes and returns 8 bytes",
       "kernel k, CTA (0,0,0), thread (0,0,0), PC ", "PTX line 38"});
  // A kernel's address is a function address too, but a kernel cannot be called.
  const std::string self = table_module("mov.u64 %rd5, k;\ncall (r0), %rd5, (p0), proto;");
  expect_contains(run_table_module(self, 0),
                  {"indirect call of k, which cannot run: k is a kernel (.entry)"});
}

TEST(IndirectCalls, CallsThatDoNotFitTheirPrototypeAreRefusedPerKernel) {
  const std::string others = "; kernel k cannot run (the module's other kernels are not affected)";
  EXPECT_EQ(refusal_of(table_module()), "");
  EXPECT_EQ(refusal_of(table_module("call (r0), %rd5, (p0, p0), proto;")),
            "table.ptx:38: indirect call whose arguments or return values do not match its prototype proto" +
                others + "\n    call (r0), %rd5, (p0, p0), proto;");
  EXPECT_EQ(
      refusal_of(table_module("call (r0), %rd5, (p0), other;")),
      "table.ptx:38: indirect call naming other, which is no .callprototype of the function (.calltargets "
      "lists are not supported)" +
          others + "\n    call (r0), %rd5, (p0), other;");
  EXPECT_EQ(refusal_of(table_module("call (r0), %rd5, (p0), proto;", "", "proto : .calltargets inc, wide;")),
            "table.ptx:37: indirect calls through a .calltargets list are not supported (nvcc writes "
            ".callprototype)" +
                others + "\n    proto : .calltargets inc, wide;");
  // A function address needs a 64-bit element: the kernels using the variable are refused.
  const std::string small = table_module("call (r0), %rd5, (p0), proto;\nld.global.u32 %r4, [small];",
                                         ".global .align 4 .u32 small[1] = {inc};\n");
  EXPECT_NE(
      refusal_of(small).find(".global small is initialised with the address of function inc in a 4-byte "
                             "element (function addresses are 64-bit)"),
      std::string::npos)
      << refusal_of(small);
}

}  // namespace
}  // namespace simtlm::ptx::indirect_calls_test
