// The timing model against the functional model on the whole suite: same outputs bit for bit, the same
// instruction counts, statistics that add up, and identical statistics from identical runs.
#include <bit>
#include <fstream>

#include "testbenches/timing/timing_fixture.hpp"
#include "workloads/reference/reference.hpp"

using namespace simtlm;
using namespace simtlm::timing_test;

namespace {

class TimingWorkload : public ::testing::TestWithParam<std::string> {};

TEST_P(TimingWorkload, OutputsAndCountsEqualFunctional) {
  const launch::Launch l = launch::load_launch(workload_launch(GetParam()));
  const sim::ChildResult t = run_timing_child(l, machine("default.yaml"));
  ASSERT_TRUE(t.ok()) << t.error;
  EXPECT_TRUE(t.failures.empty()) << failures_text(t);
  EXPECT_TRUE(t.reference_checked);

  launch::Session session(l, session_options());
  const launch::SessionResult f = session.run();
  for (const auto& [name, bytes] : f.buffers) EXPECT_EQ(t.sha256.at(name), launch::sha256_hex(bytes)) << name;

  const stats::Group s = t.stats();
  // Both models run each warp on a post-dominator stack, so each warp issues the same instructions.
  EXPECT_EQ(s.integer("warp_instructions"), f.stats.warp_instructions);
  EXPECT_EQ(s.integer("thread_instructions"), f.stats.thread_instructions);
  EXPECT_EQ(s.integer("branches"), f.stats.branches);
  EXPECT_EQ(s.integer("divergent_branches"), f.stats.divergent_branches);
  EXPECT_EQ(s.integer("ctas"), f.stats.ctas);
  EXPECT_EQ(s.integer("barriers"), f.stats.barriers);
  for (const auto& [pc, b] : f.stats.per_branch) {
    EXPECT_EQ(s.table("per_branch").at(std::to_string(pc)).integer("divergent"), b.divergent)
        << "branch at PC " << pc;
  }
  // Every cycle of an SM with resident warps either issued or stalled for one reason.
  for (const stats::Group& sm : s.list("sms")) {
    EXPECT_EQ(sm.integer("issue_cycles") + sum(sm.vector("stalls")), sm.integer("active_cycles"));
  }
  // Every request the load/store units formed reached an L1 exactly once.
  const stats::Group& m = s.group("memory");
  const stats::Group& stack = s.group("stack");
  const uint64_t formed = m.integer("global_requests") + m.integer("local_requests") +
                          stack.integer("spill_requests") + stack.integer("fill_requests");
  const stats::Group l1 = s.total("l1");
  EXPECT_EQ(l1.integer("reads") + l1.integer("writes") + l1.integer("atomics"), formed);
  EXPECT_EQ(l1.integer("hits") + l1.integer("misses") + l1.integer("bypasses"),
            l1.integer("reads") + l1.integer("writes"));
  EXPECT_GT(s.integer("cycles"), 0u);
  EXPECT_LE(s.real("ipc"), 2.0);  // two SMs, one issue each per cycle
}

INSTANTIATE_TEST_SUITE_P(Suite, TimingWorkload, ::testing::ValuesIn(workloads::reference_names()),
                         [](const auto& info) { return info.param; });

// Whole statistics documents are compared as written (every key, parts and rows included), but for the
// host's facts.
nlohmann::json without_host(nlohmann::json doc) {
  doc.erase("host");
  return doc;
}

TEST(TimingDeterminism, IdenticalRunsGiveIdenticalStatistics) {
  const launch::Launch l = launch::load_launch(workload_launch("bfs"));
  const auto m = machine("fermi-slp.yaml", {{"gpu.sms", "4"}});
  const sim::ChildResult a = run_timing_child(l, m), b = run_timing_child(l, m);
  ASSERT_TRUE(a.ok()) << a.error;
  EXPECT_EQ(without_host(a.stats_json).dump(), without_host(b.stats_json).dump());
  EXPECT_EQ(a.sha256, b.sha256);
}

TEST(TimingDispatcher, CtasSpreadOverSmsWithinTheirLimits) {
  const launch::Launch l = launch::load_launch(workload_launch("reduction"));
  const sim::ChildResult one = run_timing_child(l, machine("default.yaml", {{"gpu.sms", "1"}}));
  const sim::ChildResult four =
      run_timing_child(l, machine("default.yaml", {{"gpu.sms", "4"}, {"gpu.max_ctas_per_sm", "1"}}));
  ASSERT_TRUE(one.ok()) << one.error;
  ASSERT_TRUE(four.ok()) << four.error;
  const stats::Group four_stats = four.stats();
  uint64_t ctas = 0;
  for (const stats::Group& sm : four_stats.list("sms")) {
    EXPECT_GT(sm.integer("ctas"), 0u);
    ctas += sm.integer("ctas");
  }
  EXPECT_EQ(ctas, l.grid.count());
  EXPECT_EQ(four.sha256, one.sha256);
  EXPECT_LT(four_stats.integer("cycles"), one.stats().integer("cycles"));
}

TEST(TimingTraces, WarpTraceHasOneLinePerIssueAndVcdIsWritten) {
  const launch::Launch l = launch::load_launch(workload_launch("single_loop"));
  const fs::path dir = fs::temp_directory_path() / ("simtlm_trace_" + std::to_string(getpid()));
  fs::create_directories(dir);
  sim::TimingOptions options;
  options.vcd = dir / "wave.vcd";
  std::ofstream trace(dir / "warps.txt");
  options.warp_trace = &trace;
  const sim::ChildResult t = run_timing_child(l, machine("kepler-stack.yaml"), options);
  ASSERT_TRUE(t.ok()) << t.error;
  std::ifstream lines(dir / "warps.txt");
  std::string line, first;
  uint64_t count = 0;
  while (std::getline(lines, line)) {
    if (count++ == 0) first = line;
  }
  EXPECT_EQ(count, t.stats().integer("warp_instructions"));
  EXPECT_EQ(first.rfind("0 sm 0 cta 0 warp 0 pc 0 mask 0xffffffff ", 0), 0u) << first;
  std::ifstream vcd(dir / "wave.vcd");
  const std::string text((std::istreambuf_iterator<char>(vcd)), std::istreambuf_iterator<char>());
  for (const char* signal : {"$scope module sm0 $end", "issue_slot", "issue_mask", "$scope module warp0 $end",
                             "active_mask", "stack_depth", "$timescale\n     1 ps"}) {
    EXPECT_NE(text.find(signal), std::string::npos) << signal;
  }
  fs::remove_all(dir);
}

}  // namespace

namespace {

// --rtl-check: the branch unit's majority vote (the SM's one RTL-backed unit so far) from the Verilated twin
// and the C++ model side by side; no disagreement, and the same statistics as the C++-only run.
TEST(TimingRtl, RtlCheckAgreesAndChangesNothing) {
  for (const std::string name : {"bfs", "bitonic", "mandelbrot"}) {
    const launch::Launch l = launch::load_launch(workload_launch(name));
    sim::TimingOptions rtl;
    rtl.units = hw::parse_rtl_units("all", true);
    const sim::ChildResult a = run_timing_child(l, machine("default.yaml")),
                           b = run_timing_child(l, machine("default.yaml"), rtl);
    ASSERT_TRUE(b.ok()) << name << ": " << b.error;
    EXPECT_EQ(without_host(a.stats_json).dump(), without_host(b.stats_json).dump()) << name;
  }
}

}  // namespace
