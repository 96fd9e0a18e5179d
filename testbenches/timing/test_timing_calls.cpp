// .func calls on the SystemC model's per-warp stacks (postdom and the token discipline): outputs equal to the
// host values the functional tests check (testbenches/unit/test_device_calls.cpp), the call-stack overflow
// error, and the refusal under thread block compaction.
#include <cstring>

#include "testbenches/ptx/device_calls_host.hpp"
#include "testbenches/timing/timing_fixture.hpp"

using namespace simtlm;
using namespace simtlm::timing_test;

namespace {

template <class T>
std::string sha_of(const std::vector<T>& v) {
  std::vector<uint8_t> bytes(v.size() * sizeof(T));
  std::memcpy(bytes.data(), v.data(), bytes.size());
  return launch::sha256_hex(bytes);
}

// sha256 of each output buffer of testbenches/timing/device_calls_*.yaml computed on the host.
std::map<std::string, std::string> expected_hashes() {
  const test::DeviceCallsOutputs expected = test::device_calls_expected(128);
  return {{"fib", sha_of(expected.fib)},
          {"score", sha_of(expected.score)},
          {"squares", sha_of(expected.squares)},
          {"depth", sha_of(expected.depth)},
          {"powers", sha_of(expected.powers)}};
}

void expect_host_outputs(const std::string& yaml, const std::string& config) {
  SCOPED_TRACE(yaml + " on " + config);
  const launch::Launch l = launch::load_launch(source_path("testbenches/timing/" + yaml));
  const sim::ChildResult t = run_like_functional(l, config);
  if (!t.ok()) return;
  for (const auto& [buffer, hash] : expected_hashes()) EXPECT_EQ(t.sha256.at(buffer), hash) << buffer;
}

TEST(TimingCalls, NoinlineO3OutputsEqualHostOnPerWarpStacks) {
  expect_host_outputs("device_calls_O3.yaml", "default.yaml");
  expect_host_outputs("device_calls_O3.yaml", "kepler-stack.yaml");
}

TEST(TimingCalls, DeviceO0OutputsEqualHostOnPerWarpStacks) {
  expect_host_outputs("device_calls_O0.yaml", "default.yaml");
  expect_host_outputs("device_calls_O0.yaml", "maxwell-stack.yaml");
}

TEST(TimingCalls, StackOverflowNamesKernelCtaWarpPcAndFunction) {
  const launch::Launch l = launch::load_launch(source_path("testbenches/timing/fib_overflow.yaml"));
  const sim::ChildResult t = run_timing_child(l, machine("default.yaml"));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error_kind, "kernel");
  const std::string e = t.error;
  for (const char* part :
       {"call stack overflow calling _Z3fibi", "per-thread call stack of 1024 bytes",
        "kernel _Z6fib_ofPii, CTA (0,0,0)", "in warp ", "PC ", "device_calls.cu:18)", "SM 0"}) {
    EXPECT_NE(e.find(part), std::string::npos) << "missing '" << part << "' in: " << e;
  }
}

TEST(TimingCalls, CallsUnderCompactionAreRefusedWithKernelAndPc) {
  const launch::Launch l = launch::load_launch(source_path("testbenches/timing/device_calls_O3.yaml"));
  const sim::ChildResult t = run_timing_child(l, machine("default.yaml", {{"compaction.mechanism", "tbc"}}));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error_kind, "kernel");
  EXPECT_EQ(
      t.error,
      "kernel _Z12device_callsPiPfS_S_S_ calls .func _Z3fibi at PC 20 (PTX line 335, device_calls.cu:56): "
      "calls are not supported under thread block compaction (the CTA-wide stack has no call frames); run "
      "it with per-warp stacks (divergence.unit: warp_stacks)");
}

}  // namespace
