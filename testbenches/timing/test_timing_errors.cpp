// Bad runs end with a report naming where, never with a hang or a crash.
#include "testbenches/timing/timing_fixture.hpp"

using namespace simtlm;
using namespace simtlm::timing_test;

namespace {

void expect_contains(const std::string& text, std::initializer_list<const char*> parts) {
  for (const char* part : parts)
    EXPECT_NE(text.find(part), std::string::npos) << "missing '" << part << "' in: " << text;
}

TEST(TimingErrors, BarrierDeadlockNamesCtaWarpBarrierAndPc) {
  const launch::Launch l = launch::load_launch(source_path("testbenches/timing/deadlock.yaml"));
  const sim::ChildResult t = run_timing_child(l, machine("default.yaml"));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error_kind, "kernel");
  expect_contains(t.error, {"deadlock", "kernel wait_for_absent_threads", "CTA (0,0,0)", "SM 0",
                            "warp 0 at barrier 1", "PC 0 (PTX line 8)", "32 of 64 threads arrived"});
}

// A target that answers after 50,000 cycles with nothing else to do: no progress anywhere, so the watchdog
// fires, names the request and says which setting covers a slow target.
TEST(TimingErrors, StuckMemoryRequestNamesSmWarpPcAndAddress) {
  const launch::Launch l = launch::load_launch(workload_launch("single_loop"));
  const sim::ChildResult t = run_timing_child(
      l, machine("default.yaml",
                 {{"dram.mode", "fixed"}, {"dram.fixed_latency", "50000"}, {"run.watchdog_cycles", "1000"}}));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error_kind, "timing");
  expect_contains(t.error, {"stuck memory request (no progress for 1000 cycles (run.watchdog_cycles)",
                            "from SM 0", "warp slot 0", "PC ", "address 0x", "outstanding since cycle",
                            "needs a larger run.watchdog_cycles"});
}

TEST(TimingErrors, MaxCyclesStopsALongRun) {
  const launch::Launch l = launch::load_launch(workload_launch("mandelbrot"));
  const sim::ChildResult t = run_timing_child(l, machine("default.yaml", {{"run.max_cycles", "5000"}}));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error_kind, "kernel");
  expect_contains(t.error, {"run.max_cycles (5000) reached before kernel mandelbrot finished", "CTAs done",
                            "\n SM 0:", "\n SM 1:", "mask 0x"});
}

TEST(TimingErrors, InstructionBudgetNamesWhereItRanOut) {
  launch::Launch l = launch::load_launch(workload_launch("single_loop"));
  l.instruction_budget = 1000;
  const sim::ChildResult t = run_timing_child(l, machine("default.yaml"));
  ASSERT_FALSE(t.ok());
  expect_contains(t.error, {"instruction budget of 1000 thread instructions exceeded in kernel "
                            "single_loop, CTA (0,0,0), warp 0, SM 0, PC"});
}

TEST(TimingErrors, CtaThatFitsNoSmIsAConfigurationError) {
  const launch::Launch l = launch::load_launch(workload_launch("reduction"));
  const sim::ChildResult t =
      run_timing_child(l, machine("default.yaml", {{"gpu.shared_bytes_per_sm", "16"}}));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error_kind, "timing");
  expect_contains(t.error, {"a CTA of kernel", "does not fit in an SM"});
}

TEST(TimingErrors, ChannelsMustDivideL2Banks) {
  const launch::Launch l = launch::load_launch(workload_launch("single_loop"));
  const sim::ChildResult t = run_timing_child(l, machine("default.yaml", {{"dram.channels", "3"}}));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error_kind, "config");
  expect_contains(t.error, {"l2.banks (2) must be a multiple of dram.channels (3)"});
}

}  // namespace
