// Cache pollution on the whole timing model (l1.pollution, Robust SIMD Section VII-B): the Robust SIMD
// machine with half of every D-cache polluted leaves the same buffers as without, and misses more.
#include <optional>
#include <string>

#include "testbenches/timing/timing_fixture.hpp"

using namespace simtlm;
using namespace simtlm::timing_test;

namespace {

// The run's result, or none (after a failed expectation) when it ended with an error.
std::optional<sim::ChildResult> run_sobel(const config::MachineConfig& m) {
  const sim::ChildResult r = run_timing_child(launch::load_launch(workload_launch("sobel")), m);
  EXPECT_TRUE(r.ok()) << r.error;
  if (!r.ok()) return std::nullopt;
  EXPECT_TRUE(r.failures.empty()) << failures_text(r);
  return r;
}

TEST(TimingPollution, HalfPollutedL1sKeepTheOutputsAndMissMore) {
  const std::optional<sim::ChildResult> clean = run_sobel(machine("mv5-wpu.yaml"));
  const std::optional<sim::ChildResult> polluted =
      run_sobel(machine("mv5-wpu.yaml", {{"l1.pollution", "0.5"}}));
  ASSERT_TRUE(clean.has_value());
  ASSERT_TRUE(polluted.has_value());
  EXPECT_EQ(polluted->sha256, clean->sha256);
  const stats::Group clean_stats = clean->stats(), polluted_stats = polluted->stats();
  const stats::Group before = clean_stats.total("l1"), after = polluted_stats.total("l1");
  EXPECT_GT(after.integer("misses"), before.integer("misses"));
  EXPECT_LT(after.integer("hits"), before.integer("hits"));
  // The same requests reach the L1s; only where they are served changes.
  EXPECT_EQ(after.integer("reads"), before.integer("reads"));
  EXPECT_EQ(after.integer("writes"), before.integer("writes"));
  EXPECT_EQ(before.integer("polluted_lines"), 0u);
  // 32 KB of 128-byte lines in each of the four WPUs, half of them polluted before the first access: nothing
  // to write back.
  ASSERT_EQ(polluted_stats.list("l1").size(), 4u);
  for (const stats::Group& sm : polluted_stats.list("l1")) EXPECT_EQ(sm.integer("polluted_lines"), 128u);
  EXPECT_EQ(after.integer("polluted_lines"), 128u);
  EXPECT_EQ(after.integer("pollution_writebacks"), 0u);
}

TEST(TimingPollution, RunsAreReproducibleAndZeroPollutionIgnoresTheSeed) {
  const std::optional<sim::ChildResult> base = run_sobel(machine("mv5-wpu.yaml"));
  const std::optional<sim::ChildResult> zero =
      run_sobel(machine("mv5-wpu.yaml", {{"l1.pollution", "0"}, {"l1.pollution_seed", "99"}}));
  const std::optional<sim::ChildResult> once =
      run_sobel(machine("mv5-wpu.yaml", {{"l1.pollution", "0.5"}, {"l1.pollution_seed", "2"}}));
  const std::optional<sim::ChildResult> again =
      run_sobel(machine("mv5-wpu.yaml", {{"l1.pollution", "0.5"}, {"l1.pollution_seed", "2"}}));
  ASSERT_TRUE(base && zero && once && again);
  // Whole parts of the document as written (a total with its per-part rows, the crossbar's vectors).
  for (const char* part : {"cycles", "l1", "l2", "dram", "interconnect"}) {
    EXPECT_EQ(zero->stats_json[part], base->stats_json[part]) << part;
    EXPECT_EQ(again->stats_json[part], once->stats_json[part]) << part;
  }
  // Sobel's working set fits a quarter of the D-cache: from half polluted on, it misses more.
  EXPECT_GT(once->stats().total("l1").integer("misses"), base->stats().total("l1").integer("misses"));
}

}  // namespace
