// Every workload of the suite against its host reference, bit for bit, and determinism of the statistics.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "models/launch/session.hpp"
#include "models/launch/stats_json.hpp"
#include "workloads/reference/reference.hpp"

namespace fs = std::filesystem;
using namespace simtlm;

namespace {

fs::path workload_launch(const std::string& name) {
  return fs::path(SIMTLM_SOURCE_DIR) / "workloads" / name / (name + ".yaml");
}

launch::SessionOptions options() {
  launch::SessionOptions o;
  o.find_reference = workloads::find_reference;
  o.capture_printf = true;
  return o;
}

std::string deterministic_stats(const launch::Session& session, const launch::SessionResult& result) {
  auto doc = launch::stats_json(session.launch(), session.module(), session.kernel(), result.stats, 0.0);
  doc.erase("host");
  return doc.dump();
}

class Workload : public ::testing::TestWithParam<std::string> {};

TEST_P(Workload, MatchesReferenceAndIsDeterministic) {
  launch::Session session(launch::load_launch(workload_launch(GetParam())), options());
  const auto first = session.run();
  ASSERT_TRUE(first.reference_checked) << "workload has no host reference";
  for (const auto& failure : first.failures) ADD_FAILURE() << failure;
  EXPECT_GT(first.stats.thread_instructions, 0u);

  const auto second = session.run();
  EXPECT_EQ(deterministic_stats(session, first), deterministic_stats(session, second));
  EXPECT_EQ(first.buffers, second.buffers);
}

INSTANTIATE_TEST_SUITE_P(Suite, Workload, ::testing::ValuesIn(workloads::reference_names()),
                         [](const auto& info) { return info.param; });

// The divergence-cost microbenchmarks over every Table I pattern n = 0..31.
TEST(DivergenceMicrobenchmarks, SingleLoopEveryPattern) {
  auto base = launch::load_launch(workload_launch("single_loop"));
  for (int n = 0; n < 32; ++n) {
    auto l = base;
    l.params[1].integer = n;
    launch::Session session(l, options());
    const auto result = session.run();
    EXPECT_TRUE(result.ok()) << "n = " << n << ": " << (result.failures.empty() ? "" : result.failures[0]);
    // n lanes leave the loop early one at a time, so the loop branch diverges exactly n times.
    EXPECT_EQ(result.stats.divergent_branches, uint64_t(n)) << "n = " << n;
  }
}

TEST(DivergenceMicrobenchmarks, DoubleLoopEveryPattern) {
  auto base = launch::load_launch(workload_launch("double_loop"));
  for (int n = 0; n < 32; n += 3) {
    auto l = base;
    l.params[1].integer = n;
    l.params[2].integer = n;
    launch::Session session(l, options());
    const auto result = session.run();
    EXPECT_TRUE(result.ok()) << "n = " << n << ": " << (result.failures.empty() ? "" : result.failures[0]);
  }
}

}  // namespace

// The suite's parametrized tests take their list from the host references: every workload must have one.
TEST(WorkloadSuite, EveryWorkloadHasAHostReferenceOfItsName) {
  std::vector<std::string> names = workloads::reference_names();
  for (const std::string& name : workloads::sequence_reference_names()) names.push_back(name);  // launches:
  size_t dirs = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(SIMTLM_SOURCE_DIR) / "workloads")) {
    if (!entry.is_directory() || entry.path().filename() == "reference") continue;
    ++dirs;
    EXPECT_NE(std::find(names.begin(), names.end(), entry.path().filename().string()), names.end())
        << entry.path();
  }
  EXPECT_EQ(dirs, names.size());
}
