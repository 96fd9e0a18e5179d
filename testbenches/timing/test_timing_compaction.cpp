// Thread block compaction in the SystemC model (hw/sc/sm_compaction.cpp) against the functional CTA-wide
// compaction study (hw/compaction_study.*), two independent implementations of the same stack: the same
// outputs, and exactly the warps and compacted paths the study counts. With the permutation and compactor as
// checked RTL, no disagreement and the same statistics.
#include "hw/compaction_study.hpp"
#include "testbenches/timing/timing_fixture.hpp"
#include "workloads/reference/reference.hpp"

using namespace simtlm;
using namespace simtlm::timing_test;

namespace {

nlohmann::json without_host(nlohmann::json doc) {
  doc.erase("host");
  return doc;
}

class TimingCompaction : public ::testing::TestWithParam<std::string> {};

TEST_P(TimingCompaction, MatchesTheCtaWideStudy) {
  const launch::Launch l = launch::load_launch(workload_launch(GetParam()));
  launch::Session session(l, session_options());
  const launch::SessionResult functional = session.run();
  auto image = session.prepare_device();
  const hw::CompactionStudy study =
      hw::run_compaction_study(session, *image, {hw::NamedPermutation::kBalanced});
  auto index = [&](const std::string& m) {
    return static_cast<size_t>(std::find(study.mechanisms.begin(), study.mechanisms.end(), m) -
                               study.mechanisms.begin());
  };
  for (const std::string mechanism : {"tbc", "ideal"}) {
    const nlohmann::json t = run_timing_child(
        l, machine("fermi-slp.yaml",
                   {{"compaction.mechanism", mechanism}, {"compaction.permutation", "balanced"}}));
    ASSERT_FALSE(t.contains("error")) << mechanism << ": " << t["error"];
    EXPECT_TRUE(t["failures"].empty()) << t["failures"];
    for (const auto& [name, bytes] : functional.buffers) {
      EXPECT_EQ(t["sha256"][name], launch::sha256_hex(bytes)) << mechanism << " " << name;
    }
    const nlohmann::json& s = t["stats"];
    const size_t m = index(mechanism == std::string("tbc") ? "tbc+balanced" : "ideal");
    EXPECT_EQ(s["thread_instructions"], functional.stats.thread_instructions) << mechanism;
    EXPECT_EQ(s["warp_instructions"], study.warp_instructions[m]) << mechanism;
    const nlohmann::json& c = s["compaction"];
    EXPECT_EQ(c["p_paths"], study.p_branches[m].paths) << mechanism;
    EXPECT_EQ(c["p_compacted"], study.p_branches[m].compacted) << mechanism;
    EXPECT_EQ(c["d_paths"], study.d_branches[m].paths) << mechanism;
    EXPECT_EQ(c["d_compacted"], study.d_branches[m].compacted) << mechanism;
  }
  // CAPRI: whatever it decides to skip, the outputs and the work are the functional run's.
  const nlohmann::json capri = run_timing_child(
      l,
      machine("fermi-slp.yaml", {{"compaction.mechanism", "capri"}, {"compaction.permutation", "balanced"}}));
  ASSERT_FALSE(capri.contains("error")) << capri["error"];
  for (const auto& [name, bytes] : functional.buffers)
    EXPECT_EQ(capri["sha256"][name], launch::sha256_hex(bytes));
  EXPECT_EQ(capri["stats"]["thread_instructions"], functional.stats.thread_instructions);
  EXPECT_LE(capri["stats"]["compaction"]["paths"].get<uint64_t>(),
            study.p_branches[0].paths + study.d_branches[0].paths);
  // --rtl permutation,compactor --rtl-check (the RTL compactor holds 16 warps per CTA).
  if ((l.block.count() + 31) / 32 <= 16) {
    const auto tbc =
        machine("fermi-slp.yaml", {{"compaction.mechanism", "tbc"}, {"compaction.permutation", "balanced"}});
    hw::TimingOptions rtl;
    rtl.units = hw::parse_rtl_units("permutation,compactor", true);
    const nlohmann::json a = run_timing_child(l, tbc), b = run_timing_child(l, tbc, rtl);
    ASSERT_FALSE(b.contains("error")) << b["error"];
    EXPECT_EQ(without_host(a["stats"]).dump(), without_host(b["stats"]).dump());
  }
}

INSTANTIATE_TEST_SUITE_P(Suite, TimingCompaction, ::testing::ValuesIn(workloads::reference_names()),
                         [](const auto& info) { return info.param; });

// Balanced lets TBC compact bitonic's aligned P-branches; without a permutation it compacts none of them,
// and the kernel issues fewer warp instructions and finishes sooner than without compaction.
TEST(TimingCompactionEffect, BitonicNeedsThePermutation) {
  const launch::Launch l = launch::load_launch(workload_launch("bitonic"));
  const nlohmann::json none = run_timing_child(l, machine("fermi-slp.yaml"));
  const nlohmann::json tbc =
      run_timing_child(l, machine("fermi-slp.yaml", {{"compaction.mechanism", "tbc"}}));
  const nlohmann::json slp = run_timing_child(
      l,
      machine("fermi-slp.yaml", {{"compaction.mechanism", "tbc"}, {"compaction.permutation", "balanced"}}));
  ASSERT_FALSE(none.contains("error") || tbc.contains("error") || slp.contains("error"));
  EXPECT_EQ(tbc["stats"]["compaction"]["p_compacted"], 0u);
  EXPECT_GT(slp["stats"]["compaction"]["p_compacted"].get<uint64_t>(), 0u);
  EXPECT_LT(slp["stats"]["warp_instructions"].get<uint64_t>(),
            tbc["stats"]["warp_instructions"].get<uint64_t>());
  EXPECT_LT(slp["stats"]["cycles"].get<uint64_t>(), none["stats"]["cycles"].get<uint64_t>());
  EXPECT_GT(slp["stats"]["simd_utilization"].get<double>(), none["stats"]["simd_utilization"].get<double>());
}

}  // namespace

namespace {

// Every permutation under TBC and CAPRI keeps the functional model's outputs (three kernels with divergence).
TEST(TimingCompactionEffect, EveryPermutationKeepsTheOutputs) {
  for (const std::string name : {"bitonic", "bfs", "reduction"}) {
    const launch::Launch l = launch::load_launch(workload_launch(name));
    launch::Session session(l, session_options());
    const launch::SessionResult functional = session.run();
    for (hw::NamedPermutation p : hw::kAllNamedPermutations) {
      for (const std::string mechanism : {"tbc", "capri"}) {
        const nlohmann::json t = run_timing_child(
            l, machine("default.yaml", {{"compaction.mechanism", mechanism},
                                        {"compaction.permutation", std::string(hw::permutation_name(p))}}));
        ASSERT_FALSE(t.contains("error"))
            << name << " " << mechanism << " " << hw::permutation_name(p) << ": " << t["error"];
        for (const auto& [buffer, bytes] : functional.buffers) {
          EXPECT_EQ(t["sha256"][buffer], launch::sha256_hex(bytes))
              << name << " " << mechanism << " " << hw::permutation_name(p);
        }
      }
    }
  }
}

}  // namespace
