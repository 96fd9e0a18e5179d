// Task mode on configs/mv5-wpu.yaml (docs/robust-simd.md): every task runs exactly once under every
// organization and policy, outputs equal the functional run's, the grid splits evenly over the WPUs, the
// adaptation and subdivision statistics add up, and a kernel that needs its CTA is refused by name.
#include <string>
#include <vector>

#include "testbenches/timing/timing_fixture.hpp"

using namespace simtlm;
using namespace simtlm::timing_test;

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

nlohmann::json functional_sha256(const fs::path& file) {
  launch::Session session(launch::load_launch(file), session_options());
  nlohmann::json sha;
  for (const auto& [name, bytes] : session.run().buffers) sha[name] = launch::sha256_hex(bytes);
  return sha;
}

nlohmann::json run_tasks(const Sets& sets) {
  const fs::path file = source_path("testbenches/timing/task_once.yaml");
  const nlohmann::json r = run_timing_child(launch::load_launch(file), machine("mv5-wpu.yaml", sets));
  EXPECT_FALSE(r.contains("error")) << r.value("error", "");
  if (r.contains("error")) return {};
  EXPECT_EQ(r["sha256"]["count"], ones_sha256()) << "a task ran twice or never";
  EXPECT_EQ(r["sha256"], functional_sha256(file));
  return r["stats"];
}

struct Organization {
  const char* name;
  Sets sets;
};

class TaskMode : public ::testing::TestWithParam<Organization> {};

TEST_P(TaskMode, EveryTaskRunsOnceAndTheGridSplitsEvenly) {
  const nlohmann::json s = run_tasks(GetParam().sets);
  ASSERT_FALSE(s.is_null());
  const nlohmann::json& wpu = s["wpu"];
  EXPECT_EQ(wpu["tasks"], kTasks);
  ASSERT_EQ(wpu["per_wpu"].size(), kWpus);
  for (const nlohmann::json& w : wpu["per_wpu"]) EXPECT_EQ(w["tasks"], kTasks / kWpus);
  // Every DWS split joins its slice again before the slice takes new tasks.
  EXPECT_EQ(wpu["joins"], wpu["memory_splits"].get<uint64_t>() + wpu["branch_splits"].get<uint64_t>());
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
  const nlohmann::json s = run_tasks({{"wpu.policy", "robust"}, {"wpu.min_intervals", "2"}});
  ASSERT_FALSE(s.is_null());
  const nlohmann::json& wpu = s["wpu"];
  EXPECT_EQ(wpu["policy"], "robust");
  uint64_t intervals = 0, adaptation = 0;
  for (const nlohmann::json& w : wpu["per_wpu"]) {
    EXPECT_EQ(w["fallback"], 0u);
    const nlohmann::json& list = w["intervals"];
    ASSERT_FALSE(list.empty());
    EXPECT_EQ(list[0]["width"], 32u);
    EXPECT_EQ(list[0]["depth"], 1u);
    EXPECT_EQ(list[0]["start_cycle"], 0u);
    uint64_t sum = 0;
    for (size_t i = 0; i < list.size(); ++i) {
      const nlohmann::json& iv = list[i];
      const uint64_t width = iv["width"], depth = iv["depth"];
      EXPECT_GE(width, 1u);
      EXPECT_LE(width, 32u);
      EXPECT_LE(depth, (32 + width - 1) / width);
      if (iv["phase"] == "adapt") {
        sum += iv["cycles"].get<uint64_t>();
        // An interval ends once 2 tasks per thread context (32) completed and its slices finished theirs.
        EXPECT_GE(iv["tasks"].get<uint64_t>(), 2u * 32u);
      }
      if (i > 0) {
        EXPECT_EQ(iv["start_cycle"],
                  list[i - 1]["start_cycle"].get<uint64_t>() + list[i - 1]["cycles"].get<uint64_t>());
      }
    }
    EXPECT_EQ(w["adaptation_cycles"], sum);
    intervals += list.size();
    adaptation += sum;
  }
  EXPECT_EQ(wpu["adaptation_cycles"], adaptation);
  EXPECT_GE(wpu["intervals"].get<uint64_t>(), intervals - kWpus);  // the tail intervals are not counted
}

TEST(TaskModeRobust, EveryReconfigurationStallsForItsCycles) {
  for (const char* cycles : {"10", "500"}) {
    const nlohmann::json s =
        run_tasks({{"wpu.policy", "robust"}, {"wpu.min_intervals", "2"}, {"wpu.reconfigure_cycles", cycles}});
    ASSERT_FALSE(s.is_null());
    const uint64_t n = s["wpu"]["reconfigurations"];
    EXPECT_GT(n, 0u);
    EXPECT_EQ(s["wpu"]["reconfiguration_stall_cycles"], n * std::stoull(cycles));
  }
}

TEST(TaskModeDws, ScatteredReadsAndDataBranchesSplitSlices) {
  const nlohmann::json s = run_tasks({{"wpu.policy", "dws"}});
  ASSERT_FALSE(s.is_null());
  EXPECT_GT(s["wpu"]["memory_splits"].get<uint64_t>(), 0u);
  EXPECT_GT(s["wpu"]["branch_splits"].get<uint64_t>(), 0u);
}

TEST(TaskModeDws, ASplitJoinsOnlyAfterItsOwnLoadIsAnswered) {
  const fs::path file = source_path("testbenches/timing/dws_join_after_load.yaml");
  for (const char* organization : {"4", "32"}) {
    SCOPED_TRACE(organization);
    const std::string depth = std::to_string(64 / std::stoul(organization));
    const nlohmann::json r = run_timing_child(
        launch::load_launch(file),
        machine("mv5-wpu.yaml", {{"wpu.policy", "dws"}, {"wpu.width", organization}, {"wpu.depth", depth}}));
    ASSERT_FALSE(r.contains("error")) << r.value("error", "");
    EXPECT_EQ(r["sha256"], functional_sha256(file));
    const nlohmann::json& wpu = r["stats"]["wpu"];
    EXPECT_GT(wpu["branch_splits"].get<uint64_t>(), 0u);
    EXPECT_EQ(wpu["joins"], wpu["memory_splits"].get<uint64_t>() + wpu["branch_splits"].get<uint64_t>());
  }
}

TEST(TaskModeDws, RunsAreReproducible) {
  const Sets sets = {{"wpu.policy", "robust_dws"}, {"wpu.min_intervals", "2"}, {"l1.pollution", "0.25"}};
  nlohmann::json first = run_tasks(sets), second = run_tasks(sets);
  ASSERT_FALSE(first.is_null());
  first.erase("host");
  second.erase("host");
  EXPECT_EQ(first, second);
}

TEST(TaskModePipeline, OneBankSerializesEveryFurtherRequestOfAnInstruction) {
  const nlohmann::json s = run_tasks({{"core.dcache_banks", "1"}});
  ASSERT_FALSE(s.is_null());
  const nlohmann::json& m = s["memory"];
  EXPECT_EQ(m["dcache_bank_conflict_cycles"],
            m["global_requests"].get<uint64_t>() - m["global_instructions"].get<uint64_t>());
}

TEST(TaskModeErrors, AKernelWithABarrierIsRefusedByName) {
  const nlohmann::json r =
      run_timing_child(launch::load_launch(workload_launch("reduction")), machine("mv5-wpu.yaml"));
  ASSERT_TRUE(r.contains("error"));
  const std::string e = r["error"];
  EXPECT_NE(e.find("cannot run in task mode"), std::string::npos) << e;
  EXPECT_NE(e.find("PTX line"), std::string::npos) << e;
}

}  // namespace
