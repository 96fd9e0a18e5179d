// Branch and data herding on the timing model, installed as `simtlm run` installs it (sim::prepare_herding):
// a herded timing run writes exactly what the herded functional run writes (mandelbrot's branches, sobel's
// image loads), herds the same executions, leaves no divergent branch where every divergent one is herded,
// pays the majority decision's cycles, and agrees with the Verilated majority and popular-block units under
// --rtl-check.
#include "sim/herding_run.hpp"
#include "testbenches/timing/timing_fixture.hpp"

using namespace simtlm;
using namespace simtlm::timing_test;

namespace {

struct Runs {
  sim::ChildResult timing;                                 // the child's report, with "herding" statistics
  std::map<std::string, std::vector<uint8_t>> functional;  // the herded functional run's buffers
  nlohmann::json functional_herding;
  uint64_t functional_divergent = 0;
};

std::vector<uint8_t> timing_buffer(const Runs& r, const std::string& name) {
  if (!r.timing.ok()) return {};
  return r.timing.buffers.at(name);
}

// Runs `workload` herded as `cli` asks on the timing model (in a child, the units `units`) and functionally.
Runs run_herded(const std::string& workload, const sim::HerdingCli& cli, const hw::UnitSelection& units = {},
                const std::vector<std::string>& launch_sets = {}) {
  const config::MachineConfig m = machine("default.yaml");
  Runs r;
  {
    launch::Launch l = launch::load_launch(workload_launch(workload), launch_sets);
    launch::SessionOptions options = session_options();
    std::unique_ptr<sim::HerdingRun> herding = sim::prepare_herding(l, cli, units, options);
    sim::ChildReport extra;
    extra.buffers = true;
    extra.report = [&](nlohmann::json& out) {
      if (herding) out["herding"] = herding->statistics().json();
    };
    r.timing = sim::run_timing_child(l, options, m, {}, extra);
    EXPECT_TRUE(r.timing.ok()) << r.timing.error;
  }
  launch::Launch l = launch::load_launch(workload_launch(workload), launch_sets);
  launch::SessionOptions options = session_options();
  std::unique_ptr<sim::HerdingRun> herding = sim::prepare_herding(l, cli, {}, options);
  launch::Session session(std::move(l), options);
  if (herding) herding->check(session.launch(), session.module(), {&session.kernel()});
  const launch::SessionResult f = session.run();
  EXPECT_TRUE(f.ok());
  r.functional = f.buffers;
  r.functional_divergent = f.stats.divergent_branches;
  if (herding) r.functional_herding = herding->statistics().json();
  return r;
}

sim::HerdingCli all_branches() {
  sim::HerdingCli cli;
  cli.branches = "all";
  return cli;
}

sim::HerdingCli image_loads() {
  sim::HerdingCli cli;
  cli.buffers = "image";
  return cli;
}

uint64_t stat(const Runs& r, const char* key) {
  return r.timing.ok() ? r.timing.stats().integer(key) : 0;
}

TEST(TimingHerding, MandelbrotHerdedTimingWritesTheHerdedFunctionalOutput) {
  const Runs herded = run_herded("mandelbrot", all_branches());
  const Runs exact = run_herded("mandelbrot", {});
  ASSERT_EQ(herded.functional.at("iterations").size(), 65536u);
  EXPECT_EQ(timing_buffer(herded, "iterations"), herded.functional.at("iterations"));
  EXPECT_NE(herded.functional.at("iterations"), exact.functional.at("iterations"));
  EXPECT_EQ(timing_buffer(exact, "iterations"), exact.functional.at("iterations"));
  // Each warp's decisions depend on its own lanes only, so both runners herd the same executions.
  ASSERT_FALSE(herded.timing.herding.is_null());
  EXPECT_EQ(herded.timing.herding["branches"], herded.functional_herding["branches"]);
  EXPECT_GT(herded.functional_herding["branches"]["herded"].get<uint64_t>(), 0u);
  EXPECT_EQ(herded.timing.herding["instances"], herded.functional_herding["instances"]);
  // The only divergent branch (the loop test) is herded: nothing diverges any more.
  EXPECT_EQ(stat(herded, "divergent_branches"), 0u);
  EXPECT_EQ(herded.functional_divergent, 0u);
  EXPECT_GT(stat(exact, "divergent_branches"), 0u);
  EXPECT_EQ(stat(exact, "divergent_branches"), exact.functional_divergent);
  EXPECT_LT(stat(herded, "warp_instructions"), stat(exact, "warp_instructions"));
}

TEST(TimingHerding, SobelDataHerdingTimingWritesTheHerdedFunctionalOutputWithFewerRequests) {
  const Runs herded = run_herded("sobel", image_loads());
  const Runs exact = run_herded("sobel", {});
  EXPECT_EQ(timing_buffer(herded, "edges"), herded.functional.at("edges"));
  EXPECT_NE(herded.functional.at("edges"), exact.functional.at("edges"));
  ASSERT_FALSE(herded.timing.herding.is_null());
  const nlohmann::json& loads = herded.functional_herding["loads"];
  EXPECT_EQ(herded.timing.herding["loads"], loads);
  EXPECT_GT(loads["herded"].get<uint64_t>(), 0u);
  EXPECT_LT(loads["requests_after"].get<uint64_t>(), loads["requests_before"].get<uint64_t>());
  EXPECT_EQ(herded.functional_herding["branches"]["executions"], 0u);  // no branch hook installed
  const auto requests = [](const Runs& r) {
    return r.timing.stats().group("memory").integer("global_requests");
  };
  ASSERT_TRUE(herded.timing.ok() && exact.timing.ok());
  // Every herded load's lanes read one block, so the coalescer sends fewer requests.
  EXPECT_LT(requests(herded), requests(exact));
}

// One warp (two rows of 16 pixels near the set's boundary, where the loop test diverges), so no other warp
// hides its latency: each execution of a herded branch, uniform or not, delays the warp by branch_cycles.
// (On the whole image the scheduler hides one cycle per loop test: 252773 cycles either way.)
TEST(TimingHerding, TheMajorityDecisionsCyclesAddToTheRun) {
  const std::vector<std::string> one_warp = {"grid=[1, 1, 1]", "block=[16, 2, 1]",
                                             "params=[iterations, 256, 256, 64, -0.75, 0.1, 0.01171875]"};
  std::vector<Runs> runs;
  for (uint32_t cycles : {0u, 1u, 2u}) {
    sim::HerdingCli cli = all_branches();
    cli.branch_cycles = cycles;
    runs.push_back(run_herded("mandelbrot", cli, {}, one_warp));
  }
  ASSERT_FALSE(runs[0].timing.herding.is_null());
  uint64_t herded_site_executions = 0;
  for (const nlohmann::json& b : runs[0].timing.herding["kernels"]["mandelbrot"]["branches"]) {
    if (b["herd"]) herded_site_executions += b["executions"].get<uint64_t>();
  }
  EXPECT_GT(runs[0].timing.herding["branches"]["herded"].get<uint64_t>(), 0u);
  EXPECT_GT(herded_site_executions, 2u);
  EXPECT_EQ(stat(runs[1], "cycles"), stat(runs[0], "cycles") + herded_site_executions);
  EXPECT_EQ(stat(runs[2], "cycles"), stat(runs[0], "cycles") + 2 * herded_site_executions);
  EXPECT_EQ(timing_buffer(runs[1], "iterations"), timing_buffer(runs[0], "iterations"));
  EXPECT_EQ(timing_buffer(runs[0], "iterations"), runs[0].functional.at("iterations"));
  EXPECT_EQ(stat(runs[1], "warp_instructions"), stat(runs[0], "warp_instructions"));
}

class TimingHerdingRtl : public ::testing::TestWithParam<const char*> {};

// --rtl majority,popular_block --rtl-check: the twins answer every vote and selection like the C++ models
// (an RtlMismatch would end the child with an error), so the outputs and counts are the C++ run's.
TEST_P(TimingHerdingRtl, TheVerilatedUnitsAgreeWithTheModels) {
  const std::string workload = GetParam();
  const sim::HerdingCli cli = workload == "sobel" ? image_loads() : all_branches();
  const hw::UnitSelection rtl{.rtl_majority = true, .rtl_popular_block = true, .check = true};
  const Runs checked = run_herded(workload, cli, rtl);
  const Runs plain = run_herded(workload, cli);
  ASSERT_TRUE(checked.timing.ok()) << checked.timing.error;
  EXPECT_EQ(checked.timing.sha256, plain.timing.sha256);
  EXPECT_EQ(checked.timing.herding["branches"], plain.timing.herding["branches"]);
  EXPECT_EQ(checked.timing.herding["loads"], plain.timing.herding["loads"]);
  EXPECT_EQ(stat(checked, "cycles"), stat(plain, "cycles"));
  EXPECT_GT(checked.timing.herding["instances"].get<uint64_t>(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Workloads, TimingHerdingRtl, ::testing::Values("mandelbrot", "sobel"));

}  // namespace
