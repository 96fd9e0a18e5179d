// Cache pollution on the whole timing model (l1.pollution, Robust SIMD Section VII-B): the Robust SIMD
// machine with half of every D-cache polluted leaves the same buffers as without, and misses more.
#include <string>

#include "testbenches/timing/timing_fixture.hpp"

using namespace simtlm;
using namespace simtlm::timing_test;

namespace {

nlohmann::json run_sobel(const config::MachineConfig& m) {
  const nlohmann::json r = run_timing_child(launch::load_launch(workload_launch("sobel")), m);
  EXPECT_FALSE(r.contains("error")) << r.value("error", "");
  if (r.contains("error")) return {};
  EXPECT_TRUE(r["failures"].empty()) << r["failures"].dump();
  return r;
}

TEST(TimingPollution, HalfPollutedL1sKeepTheOutputsAndMissMore) {
  const nlohmann::json clean = run_sobel(machine("mv5-wpu.yaml"));
  const nlohmann::json polluted = run_sobel(machine("mv5-wpu.yaml", {{"l1.pollution", "0.5"}}));
  ASSERT_FALSE(clean.is_null());
  ASSERT_FALSE(polluted.is_null());
  EXPECT_EQ(polluted["sha256"], clean["sha256"]);
  const nlohmann::json& before = clean["stats"]["l1"];
  const nlohmann::json& after = polluted["stats"]["l1"];
  EXPECT_GT(after["misses"].get<uint64_t>(), before["misses"].get<uint64_t>());
  EXPECT_LT(after["hits"].get<uint64_t>(), before["hits"].get<uint64_t>());
  // The same requests reach the L1s; only where they are served changes.
  EXPECT_EQ(after["reads"], before["reads"]);
  EXPECT_EQ(after["writes"], before["writes"]);
  EXPECT_EQ(before["polluted_lines"], 0u);
  // 32 KB of 128-byte lines in each of the four WPUs, half of them polluted before the first access: nothing
  // to write back.
  ASSERT_EQ(after["per_sm"].size(), 4u);
  for (const nlohmann::json& sm : after["per_sm"]) EXPECT_EQ(sm["polluted_lines"], 128u);
  EXPECT_EQ(after["polluted_lines"], 128u);
  EXPECT_EQ(after["pollution_writebacks"], 0u);
}

TEST(TimingPollution, RunsAreReproducibleAndZeroPollutionIgnoresTheSeed) {
  const nlohmann::json base = run_sobel(machine("mv5-wpu.yaml"));
  const nlohmann::json zero =
      run_sobel(machine("mv5-wpu.yaml", {{"l1.pollution", "0"}, {"l1.pollution_seed", "99"}}));
  const nlohmann::json once =
      run_sobel(machine("mv5-wpu.yaml", {{"l1.pollution", "0.5"}, {"l1.pollution_seed", "2"}}));
  const nlohmann::json again =
      run_sobel(machine("mv5-wpu.yaml", {{"l1.pollution", "0.5"}, {"l1.pollution_seed", "2"}}));
  ASSERT_FALSE(base.is_null() || zero.is_null() || once.is_null() || again.is_null());
  for (const char* part : {"cycles", "l1", "l2", "dram", "interconnect"}) {
    EXPECT_EQ(zero["stats"][part], base["stats"][part]) << part;
    EXPECT_EQ(again["stats"][part], once["stats"][part]) << part;
  }
  // Sobel's working set fits a quarter of the D-cache: from half polluted on, it misses more.
  EXPECT_GT(once["stats"]["l1"]["misses"].get<uint64_t>(), base["stats"]["l1"]["misses"].get<uint64_t>());
}

}  // namespace
