// Data herding's latency on the timing model: a herded load costs the machine's popular-block selector's
// latency (lsu.herding_selector_rounds R: R + 1 cycles, rtl/popular_block_selector.v) unless the launch file
// or --herd-load-cycles gives load_cycles, and a selector that cannot serve the herding group is refused
// naming the key. herd_latency.yaml is one warp whose four herded loads are followed by a loop that hides
// their memory latency, so every cycle a herded load adds to the warp's issue shows in the run's cycles.
#include <fstream>
#include <optional>

#include "sim/herding_run.hpp"
#include "testbenches/timing/timing_fixture.hpp"

using namespace simtlm;
using namespace simtlm::timing_test;

namespace {

constexpr const char* kRoundsKey = "lsu.herding_selector_rounds";
constexpr uint64_t kHerdedLoadIssues = 4;  // herd_latency.ptx: four loads, one warp, each executed once

struct HerdedRun {
  uint64_t cycles = 0;
  nlohmann::json herding;  // the run's herding statistics
};

// herd_latency.yaml on the default machine with the selector built with `rounds`, every load of buffer `in`
// herded; `load_cycles` as --herd-load-cycles when given.
HerdedRun run(uint32_t rounds, std::optional<uint32_t> load_cycles = {},
              const std::vector<std::string>& launch_sets = {}) {
  const config::MachineConfig m = machine("default.yaml", {{kRoundsKey, std::to_string(rounds)}});
  launch::Launch l = launch::load_launch(source_path("testbenches/timing/herd_latency.yaml"), launch_sets);
  launch::SessionOptions options = session_options();
  sim::HerdingCli cli;
  if (launch_sets.empty()) cli.buffers = "in";
  cli.load_cycles = load_cycles;
  std::unique_ptr<sim::HerdingRun> herding = sim::prepare_herding(l, cli, {}, options);
  EXPECT_TRUE(herding);
  if (!herding) return {};
  herding->use_machine(m);
  sim::ChildReport extra;
  extra.report = [&](nlohmann::json& out) { out["herding"] = herding->statistics().json(); };
  const sim::ChildResult out = sim::run_timing_child(l, options, m, {}, extra);
  EXPECT_TRUE(out.ok()) << out.error;
  if (!out.ok()) return {};
  return {out.stats().integer("cycles"), out.herding};
}

struct RoundsCase {
  uint32_t rounds;
  uint32_t latency;  // the selector RTL's: ROUNDS + 1 cycles from the edge that samples start to done
};

class TimingHerdLatency : public ::testing::TestWithParam<RoundsCase> {};

TEST_P(TimingHerdLatency, EachHerdedLoadIssueCostsTheSelectorsLatency) {
  const RoundsCase c = GetParam();
  // Not const: a failed run leaves null statistics, which a const operator[] must not index.
  HerdedRun free_loads = run(c.rounds, 0u);
  HerdedRun selector = run(c.rounds);
  ASSERT_GT(free_loads.cycles, 0u);
  // Every execution of a herded load is charged; each of the four moved 31 lanes into lane 0's block.
  EXPECT_EQ(selector.herding["loads"]["executions"], kHerdedLoadIssues);
  EXPECT_EQ(selector.herding["loads"]["herded"], kHerdedLoadIssues);
  EXPECT_EQ(selector.herding["loads"]["lanes_rewritten"], 31 * kHerdedLoadIssues);
  EXPECT_EQ(selector.cycles, free_loads.cycles + kHerdedLoadIssues * c.latency);
  EXPECT_EQ(selector.herding["load_latency"],
            (nlohmann::json{{"cycles", c.latency}, {"source", "selector"}, {"selector_rounds", c.rounds}}));
  EXPECT_EQ(free_loads.herding["load_latency"]["cycles"], 0u);
  EXPECT_EQ(free_loads.herding["load_latency"]["source"], "launch");
}

INSTANTIATE_TEST_SUITE_P(Rounds, TimingHerdLatency, ::testing::Values(RoundsCase{1, 2}, RoundsCase{4, 5}),
                         [](const auto& info) {
                           std::string name = "rounds";
                           return name.append(std::to_string(info.param.rounds));
                         });

TEST(TimingHerdLatencyOverride, LoadCyclesFromTheCommandLineOrTheLaunchFileOverrideTheSelector) {
  HerdedRun free_loads = run(4, 0u);
  HerdedRun option = run(4, 7u);
  EXPECT_EQ(option.cycles, free_loads.cycles + kHerdedLoadIssues * 7);
  EXPECT_EQ(option.herding["load_latency"],
            (nlohmann::json{{"cycles", 7u}, {"source", "launch"}, {"selector_rounds", 4u}}));
  HerdedRun file = run(4, {}, {"herding={buffers: [in], load_cycles: 3}"});
  EXPECT_EQ(file.cycles, free_loads.cycles + kHerdedLoadIssues * 3);
  EXPECT_EQ(file.herding["load_latency"]["source"], "launch");
  // The launch file's section unchanged but for an unset load_cycles: the selector's 5 cycles.
  HerdedRun unset = run(4, {}, {"herding={buffers: [in]}"});
  EXPECT_EQ(unset.cycles, free_loads.cycles + kHerdedLoadIssues * 5);
}

// The selection happens in the coalescer stage before any request leaves, so it also delays the data. With a
// one-iteration spin the warp waits for its loads; the four loads read one line after herding, so the later
// three merge with the first one's miss and the run ends exactly the first selection's latency later.
TEST(TimingHerdLatencyExposed, TheRequestsLeaveAfterTheSelection) {
  const std::vector<std::string> short_spin = {"params=[in, out, 1]", "herding={buffers: [in]}"};
  const std::vector<std::string> free_spin = {"params=[in, out, 1]",
                                              "herding={buffers: [in], load_cycles: 0}"};
  for (const RoundsCase c : {RoundsCase{1, 2}, RoundsCase{4, 5}}) {
    const HerdedRun free_loads = run(c.rounds, {}, free_spin);
    const HerdedRun selector = run(c.rounds, {}, short_spin);
    ASSERT_GT(free_loads.cycles, 0u);
    EXPECT_EQ(selector.cycles, free_loads.cycles + c.latency) << "rounds " << c.rounds;
  }
}

TEST(TimingHerdLatencyRefusal, RoundsThatAreNoPowerOfTwoAreRefusedNamingFileLineAndKey) {
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / "simtlm_bad_selector_rounds.yaml";
  {
    std::ofstream out(file);
    out << "gpu:\n  sms: 1\nlsu:\n  herding_selector_rounds: 6\n";
  }
  try {
    config::MachineConfig::load(file);
    ADD_FAILURE() << "6 rounds were accepted";
  } catch (const config::ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              file.string() + ":4: lsu.herding_selector_rounds: expected a power of two in [1, 32], got '6'");
  }
  std::filesystem::remove(file);
  config::MachineConfig m;
  EXPECT_THROW(m.set(kRoundsKey, "64", "--set"), config::ConfigError);
  EXPECT_THROW(m.set(kRoundsKey, "0", "--set"), config::ConfigError);
}

TEST(TimingHerdLatencyRefusal, RoundsThatDoNotDivideTheHerdingGroupAreRefusedNamingTheKey) {
  launch::HerdingSpec spec;
  spec.buffers = {"in"};
  spec.group_lanes = 16;
  sim::HerdingRun herding(spec, {});
  config::MachineConfig m;
  m.set(kRoundsKey, "32", "--set");
  try {
    herding.use_machine(m);
    ADD_FAILURE() << "32 rounds were accepted for groups of 16 lanes";
  } catch (const config::ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "defaults with --set lsu.herding_selector_rounds=32: lsu.herding_selector_rounds: 32 rounds do "
              "not divide herding.group_lanes 16 lanes (the selector compares group_lanes / rounds lanes per "
              "cycle)");
  }
  m.set(kRoundsKey, "16", "--set");
  herding.use_machine(m);
  EXPECT_EQ(herding.herding().load_cycles(), 17u);
  // Without data herding the selector is idle: any selector a warp can hold is accepted.
  launch::HerdingSpec branches;
  branches.branches.all = true;
  branches.group_lanes = 8;
  sim::HerdingRun branch_herding(branches, {});
  m.set(kRoundsKey, "32", "--set");
  branch_herding.use_machine(m);
  EXPECT_EQ(branch_herding.herding().selector_rounds(), 32u);
  EXPECT_FALSE(branch_herding.statistics().json().contains("load_latency"));
}

}  // namespace
