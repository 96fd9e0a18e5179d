// Indirect calls (issue 32, point 3) on the SystemC model's per-warp stacks, postdom and the token
// discipline: the outputs of testbenches/ptx/indirect_calls.cu equal the host twins and each warp issues
// what it issues in the functional run (a divergent call serializes per target and reconverges the same
// way in both); a bad function pointer and a call-stack overflow stop the run with the kernel's error.
#include <cstring>

#include "testbenches/ptx/indirect_calls_host.hpp"
#include "testbenches/timing/timing_fixture.hpp"

namespace simtlm::timing_indirect_test {
namespace {

using timing_test::machine;
using timing_test::run_timing_child;
using timing_test::source_path;

std::string sha_of(const std::vector<int32_t>& v) {
  std::vector<uint8_t> bytes(v.size() * sizeof(int32_t));
  std::memcpy(bytes.data(), v.data(), bytes.size());
  return launch::sha256_hex(bytes);
}

void expect_outputs(const std::string& yaml, const std::map<std::string, std::vector<int32_t>>& expected) {
  for (const std::string config : {"default.yaml", "kepler-stack.yaml"}) {
    SCOPED_TRACE(yaml + " on " + config);
    const launch::Launch l = launch::load_launch(source_path("testbenches/timing/" + yaml));
    const sim::ChildResult t = timing_test::run_like_functional(l, config);
    if (!t.ok()) continue;
    for (const auto& [buffer, values] : expected) EXPECT_EQ(t.sha256.at(buffer), sha_of(values)) << buffer;
  }
}

TEST(TimingIndirectCalls, DivergentTableCallOutputsEqualHost) {
  expect_outputs("indirect_table_call.yaml", {{"out", test::indirect::table_call(96)}});
}

TEST(TimingIndirectCalls, VirtualFunctionOutputsEqualHost) {
  expect_outputs("indirect_virtual_shapes.yaml", {{"out", test::indirect::virtual_shapes(96)}});
}

TEST(TimingIndirectCalls, RunTimeTablesOutputsEqualHost) {
  const test::indirect::RuntimeTables r = test::indirect::runtime_tables(96);
  expect_outputs("indirect_runtime_tables.yaml", {{"out", r.out}, {"same", r.same}});
}

TEST(TimingIndirectCalls, RecursionThroughAPointerOutputsEqualHost) {
  expect_outputs("indirect_pointer_recursion.yaml", {{"out", test::indirect::pointer_recursion(96, 0)}});
}

void expect_kernel_error(const std::string& yaml, const std::vector<std::string>& parts) {
  const launch::Launch l = launch::load_launch(source_path("testbenches/timing/" + yaml));
  const sim::ChildResult t = run_timing_child(l, machine("default.yaml"));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error_kind, "kernel");
  for (const std::string& part : parts)
    EXPECT_NE(t.error.find(part), std::string::npos) << "missing '" << part << "' in: " << t.error;
}

TEST(TimingIndirectCalls, ABadFunctionPointerNamesKernelCtaThreadAndPc) {
  expect_kernel_error("indirect_bad_pointer.yaml",
                      {"indirect call through %rd", "to 0x1234, which is not the address of a function",
                       "kernel call_raw, CTA (0,0,0), thread (5,0,0), PC ", "indirect_calls.cu:", "SM 0"});
}

TEST(TimingIndirectCalls, RecursionThroughAPointerOverflowsTheCallStack) {
  expect_kernel_error("indirect_recursion_overflow.yaml",
                      {"call stack overflow calling _Z9depth_sumi", "per-thread call stack of 1024 bytes",
                       "kernel pointer_recursion, CTA (0,0,0)", "SM 0"});
}

}  // namespace
}  // namespace simtlm::timing_indirect_test
