// Task mode on configs/mv5-wpu.yaml (docs/robust-simd.md): every task runs exactly once under every
// organization and policy, outputs equal the functional run's, the grid splits evenly over the WPUs, the
// adaptation and subdivision statistics add up, and a kernel that needs its CTA is refused by name.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "testbenches/timing/timing_fixture.hpp"

using namespace simtlm;
using namespace simtlm::timing_test;

namespace timing_tasks_test {  // its own namespace: unity builds group it with other timing tests
namespace {

constexpr uint64_t kCounters = 4000;  // task_once.yaml: n
constexpr uint64_t kTasks = 63 * 64;  // its grid's threads: the last 32 return at once
constexpr uint64_t kWpus = 4;

using Sets = std::vector<std::pair<std::string, std::string>>;

std::string ones_sha256() {
  std::vector<uint8_t> bytes(kCounters * 4, 0);
  for (uint64_t i = 0; i < kCounters; ++i) bytes[i * 4] = 1;
  return launch::sha256_hex(bytes);
}

std::map<std::string, std::string> functional_sha256(const fs::path& file) {
  launch::Session session(launch::load_launch(file), session_options());
  return sha256_of(session.run().buffers);
}

// The run's result, or none (after a failed expectation) when it ended with an error.
std::optional<sim::ChildResult> run_tasks(const Sets& sets) {
  const fs::path file = source_path("testbenches/timing/task_once.yaml");
  const sim::ChildResult r = run_timing_child(launch::load_launch(file), machine("mv5-wpu.yaml", sets));
  EXPECT_TRUE(r.ok()) << r.error;
  if (!r.ok()) return std::nullopt;
  EXPECT_EQ(r.sha256.at("count"), ones_sha256()) << "a task ran twice or never";
  EXPECT_EQ(r.sha256, functional_sha256(file));
  return r;
}

struct Organization {
  const char* name;
  Sets sets;
};

class TaskMode : public ::testing::TestWithParam<Organization> {};

TEST_P(TaskMode, EveryTaskRunsOnceAndTheGridSplitsEvenly) {
  const std::optional<sim::ChildResult> r = run_tasks(GetParam().sets);
  ASSERT_TRUE(r.has_value());
  const stats::Group s = r->stats();
  const stats::Group& wpu = s.group("wpu");
  EXPECT_EQ(wpu.integer("tasks"), kTasks);
  ASSERT_EQ(wpu.list("per_wpu").size(), kWpus);
  for (const stats::Group& w : wpu.list("per_wpu")) EXPECT_EQ(w.integer("tasks"), kTasks / kWpus);
  // Every DWS split joins its slice again before the slice takes new tasks.
  EXPECT_EQ(wpu.integer("joins"), wpu.integer("memory_splits") + wpu.integer("branch_splits"));
}

INSTANTIATE_TEST_SUITE_P(
    Mv5Wpu, TaskMode,
    ::testing::Values(
        Organization{"static32x1", {}}, Organization{"static1x1", {{"wpu.width", "1"}, {"wpu.depth", "1"}}},
        Organization{"static8x4", {{"wpu.width", "8"}, {"wpu.depth", "4"}}},
        Organization{"static2x32", {{"wpu.width", "2"}, {"wpu.depth", "32"}}},
        Organization{"static3x5", {{"wpu.width", "3"}, {"wpu.depth", "5"}}},
        Organization{"dws16x2", {{"wpu.policy", "dws"}, {"wpu.width", "16"}, {"wpu.depth", "2"}}},
        Organization{"robust32x1", {{"wpu.policy", "robust"}, {"wpu.min_intervals", "2"}}},
        Organization{"robustInc",
                     {{"wpu.policy", "robust"}, {"wpu.min_intervals", "2"}, {"wpu.stride", "inc"}}},
        Organization{"robustFallback", {{"wpu.policy", "robust"}}},
        Organization{"robustDws16x2",
                     {{"wpu.policy", "robust_dws"},
                      {"wpu.width", "16"},
                      {"wpu.depth", "2"},
                      {"wpu.min_intervals", "2"}}},
        Organization{"polluted",
                     {{"wpu.policy", "robust"}, {"wpu.min_intervals", "2"}, {"l1.pollution", "0.5"}}}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(TaskModeRobust, IntervalsStartAtTheHardwareOrganizationAndAddUp) {
  const std::optional<sim::ChildResult> r = run_tasks({{"wpu.policy", "robust"}, {"wpu.min_intervals", "2"}});
  ASSERT_TRUE(r.has_value());
  const stats::Group s = r->stats();
  const stats::Group& wpu = s.group("wpu");
  EXPECT_EQ(wpu.get("policy").text(), "robust");
  uint64_t intervals = 0, adaptation = 0;
  for (const stats::Group& w : wpu.list("per_wpu")) {
    EXPECT_EQ(w.integer("fallback"), 0u);
    const std::vector<stats::Group>& list = w.list("intervals");
    ASSERT_FALSE(list.empty());
    EXPECT_EQ(list[0].integer("width"), 32u);
    EXPECT_EQ(list[0].integer("depth"), 1u);
    EXPECT_EQ(list[0].integer("start_cycle"), 0u);
    uint64_t sum = 0;
    for (size_t i = 0; i < list.size(); ++i) {
      const stats::Group& iv = list[i];
      const uint64_t width = iv.integer("width"), depth = iv.integer("depth");
      EXPECT_GE(width, 1u);
      EXPECT_LE(width, 32u);
      EXPECT_LE(depth, (32 + width - 1) / width);
      if (iv.get("phase").text() == "adapt") {
        sum += iv.integer("cycles");
        // An interval ends once 2 tasks per thread context (32) completed and its slices finished theirs.
        EXPECT_GE(iv.integer("tasks"), 2u * 32u);
      }
      if (i > 0) {
        EXPECT_EQ(iv.integer("start_cycle"),
                  list[i - 1].integer("start_cycle") + list[i - 1].integer("cycles"));
      }
    }
    EXPECT_EQ(w.integer("adaptation_cycles"), sum);
    intervals += list.size();
    adaptation += sum;
  }
  EXPECT_EQ(wpu.integer("adaptation_cycles"), adaptation);
  EXPECT_GE(wpu.integer("intervals"), intervals - kWpus);  // the tail intervals are not counted
}

TEST(TaskModeRobust, EveryReconfigurationStallsForItsCycles) {
  for (const char* cycles : {"10", "500"}) {
    const std::optional<sim::ChildResult> r =
        run_tasks({{"wpu.policy", "robust"}, {"wpu.min_intervals", "2"}, {"wpu.reconfigure_cycles", cycles}});
    ASSERT_TRUE(r.has_value());
    const stats::Group s = r->stats();
    const uint64_t n = s.group("wpu").integer("reconfigurations");
    EXPECT_GT(n, 0u);
    EXPECT_EQ(s.group("wpu").integer("reconfiguration_stall_cycles"), n * std::stoull(cycles));
  }
}

TEST(TaskModeDws, ScatteredReadsAndDataBranchesSplitSlices) {
  const std::optional<sim::ChildResult> r = run_tasks({{"wpu.policy", "dws"}});
  ASSERT_TRUE(r.has_value());
  const stats::Group s = r->stats();
  EXPECT_GT(s.group("wpu").integer("memory_splits"), 0u);
  EXPECT_GT(s.group("wpu").integer("branch_splits"), 0u);
}

TEST(TaskModeDws, ASplitJoinsOnlyAfterItsOwnLoadIsAnswered) {
  const fs::path file = source_path("testbenches/timing/dws_join_after_load.yaml");
  for (const char* organization : {"4", "32"}) {
    SCOPED_TRACE(organization);
    const std::string depth = std::to_string(64 / std::stoul(organization));
    const sim::ChildResult r = run_timing_child(
        launch::load_launch(file),
        machine("mv5-wpu.yaml", {{"wpu.policy", "dws"}, {"wpu.width", organization}, {"wpu.depth", depth}}));
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.sha256, functional_sha256(file));
    const stats::Group s = r.stats();
    const stats::Group& wpu = s.group("wpu");
    EXPECT_GT(wpu.integer("branch_splits"), 0u);
    EXPECT_EQ(wpu.integer("joins"), wpu.integer("memory_splits") + wpu.integer("branch_splits"));
  }
}

TEST(TaskModeDws, RunsAreReproducible) {
  const Sets sets = {{"wpu.policy", "robust_dws"}, {"wpu.min_intervals", "2"}, {"l1.pollution", "0.25"}};
  const std::optional<sim::ChildResult> a = run_tasks(sets), b = run_tasks(sets);
  ASSERT_TRUE(a.has_value() && b.has_value());
  // The whole document as written, but for the host's facts.
  nlohmann::json first = a->stats_json, second = b->stats_json;
  first.erase("host");
  second.erase("host");
  EXPECT_EQ(first, second);
}

TEST(TaskModePipeline, OneBankSerializesEveryFurtherRequestOfAnInstruction) {
  const std::optional<sim::ChildResult> r = run_tasks({{"core.dcache_banks", "1"}});
  ASSERT_TRUE(r.has_value());
  const stats::Group s = r->stats();
  const stats::Group& m = s.group("memory");
  EXPECT_EQ(m.integer("dcache_bank_conflict_cycles"),
            m.integer("global_requests") - m.integer("global_instructions"));
}

TEST(TaskModeErrors, AKernelWithABarrierIsRefusedByName) {
  const sim::ChildResult r =
      run_timing_child(launch::load_launch(workload_launch("reduction")), machine("mv5-wpu.yaml"));
  ASSERT_FALSE(r.ok());
  const std::string e = r.error;
  EXPECT_NE(e.find("cannot run in task mode"), std::string::npos) << e;
  EXPECT_NE(e.find("PTX line"), std::string::npos) << e;
}

}  // namespace
}  // namespace timing_tasks_test
