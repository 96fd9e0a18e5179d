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
  const nlohmann::json t = run_timing_child(l, machine("default.yaml"));
  ASSERT_FALSE(t.contains("error")) << t["error"];
  EXPECT_TRUE(t["failures"].empty()) << t["failures"];
  EXPECT_TRUE(t["reference_checked"].get<bool>());

  launch::Session session(l, session_options());
  const launch::SessionResult f = session.run();
  for (const auto& [name, bytes] : f.buffers) EXPECT_EQ(t["sha256"][name], launch::sha256_hex(bytes)) << name;

  const nlohmann::json& s = t["stats"];
  // Both models run each warp on a post-dominator stack, so each warp issues the same instructions.
  EXPECT_EQ(s["warp_instructions"], f.stats.warp_instructions);
  EXPECT_EQ(s["thread_instructions"], f.stats.thread_instructions);
  EXPECT_EQ(s["branches"], f.stats.branches);
  EXPECT_EQ(s["divergent_branches"], f.stats.divergent_branches);
  EXPECT_EQ(s["ctas"], f.stats.ctas);
  EXPECT_EQ(s["barriers"], f.stats.barriers);
  for (const auto& [pc, b] : f.stats.per_branch) {
    EXPECT_EQ(s["per_branch"][std::to_string(pc)]["divergent"], b.divergent) << "branch at PC " << pc;
  }
  // Every cycle of an SM with resident warps either issued or stalled for one reason.
  for (const nlohmann::json& sm : s["sms"]) {
    uint64_t stalled = 0;
    for (const auto& [why, n] : sm["stalls"].items()) stalled += n.get<uint64_t>();
    EXPECT_EQ(sm["issue_cycles"].get<uint64_t>() + stalled, sm["active_cycles"].get<uint64_t>());
  }
  // Every request the load/store units formed reached an L1 exactly once.
  const nlohmann::json& m = s["memory"];
  const uint64_t formed = m["global_requests"].get<uint64_t>() + m["local_requests"].get<uint64_t>() +
                          s["stack"]["spill_requests"].get<uint64_t>() +
                          s["stack"]["fill_requests"].get<uint64_t>();
  EXPECT_EQ(s["l1"]["reads"].get<uint64_t>() + s["l1"]["writes"].get<uint64_t>() +
                s["l1"]["atomics"].get<uint64_t>(),
            formed);
  EXPECT_EQ(s["l1"]["hits"].get<uint64_t>() + s["l1"]["misses"].get<uint64_t>() +
                s["l1"]["bypasses"].get<uint64_t>(),
            s["l1"]["reads"].get<uint64_t>() + s["l1"]["writes"].get<uint64_t>());
  EXPECT_GT(s["cycles"].get<uint64_t>(), 0u);
  EXPECT_LE(s["ipc"].get<double>(), 2.0);  // two SMs, one issue each per cycle
}

INSTANTIATE_TEST_SUITE_P(Suite, TimingWorkload, ::testing::ValuesIn(workloads::reference_names()),
                         [](const auto& info) { return info.param; });

nlohmann::json without_host(nlohmann::json doc) {
  doc.erase("host");
  return doc;
}

TEST(TimingDeterminism, IdenticalRunsGiveIdenticalStatistics) {
  const launch::Launch l = launch::load_launch(workload_launch("bfs"));
  const auto m = machine("fermi-slp.yaml", {{"gpu.sms", "4"}});
  const nlohmann::json a = run_timing_child(l, m), b = run_timing_child(l, m);
  ASSERT_FALSE(a.contains("error")) << a["error"];
  EXPECT_EQ(without_host(a["stats"]).dump(), without_host(b["stats"]).dump());
  EXPECT_EQ(a["sha256"], b["sha256"]);
}

TEST(TimingDispatcher, CtasSpreadOverSmsWithinTheirLimits) {
  const launch::Launch l = launch::load_launch(workload_launch("reduction"));
  const nlohmann::json one = run_timing_child(l, machine("default.yaml", {{"gpu.sms", "1"}}));
  const nlohmann::json four =
      run_timing_child(l, machine("default.yaml", {{"gpu.sms", "4"}, {"gpu.max_ctas_per_sm", "1"}}));
  ASSERT_FALSE(one.contains("error")) << one["error"];
  ASSERT_FALSE(four.contains("error")) << four["error"];
  uint64_t ctas = 0;
  for (const nlohmann::json& sm : four["stats"]["sms"]) {
    EXPECT_GT(sm["ctas"].get<uint64_t>(), 0u);
    ctas += sm["ctas"].get<uint64_t>();
  }
  EXPECT_EQ(ctas, l.grid.count());
  EXPECT_EQ(four["sha256"], one["sha256"]);
  EXPECT_LT(four["stats"]["cycles"].get<uint64_t>(), one["stats"]["cycles"].get<uint64_t>());
}

TEST(TimingTraces, WarpTraceHasOneLinePerIssueAndVcdIsWritten) {
  const launch::Launch l = launch::load_launch(workload_launch("single_loop"));
  const fs::path dir = fs::temp_directory_path() / ("simtlm_trace_" + std::to_string(getpid()));
  fs::create_directories(dir);
  sim::TimingOptions options;
  options.vcd = dir / "wave.vcd";
  std::ofstream trace(dir / "warps.txt");
  options.warp_trace = &trace;
  const nlohmann::json t = run_timing_child(l, machine("kepler-stack.yaml"), options);
  ASSERT_FALSE(t.contains("error")) << t["error"];
  std::ifstream lines(dir / "warps.txt");
  std::string line, first;
  uint64_t count = 0;
  while (std::getline(lines, line)) {
    if (count++ == 0) first = line;
  }
  EXPECT_EQ(count, t["stats"]["warp_instructions"].get<uint64_t>());
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
    const nlohmann::json a = run_timing_child(l, machine("default.yaml")),
                         b = run_timing_child(l, machine("default.yaml"), rtl);
    ASSERT_FALSE(b.contains("error")) << name << ": " << b["error"];
    EXPECT_EQ(without_host(a["stats"]).dump(), without_host(b["stats"]).dump()) << name;
  }
}

}  // namespace
