// Thread block compaction in the SystemC model (hw/divergence/block_compaction.cpp behind hw/sc/sm.cpp)
// against the functional CTA-wide compaction study (studies/compaction_study.*), two independent
// implementations of the same stack: the same outputs, and exactly the warps and compacted paths the study
// counts. With the permutation and compactor as checked RTL, no disagreement and the same statistics.
#include <cstring>
#include <map>

#include "studies/compaction_study.hpp"
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
  const studies::CompactionStudy study =
      studies::run_compaction_study(session, *image, {hw::NamedPermutation::kBalanced});
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
  // --rtl permutation,compactor --rtl-check (the RTL compactor holds 16 warps per CTA).
  if ((l.block.count() + 31) / 32 <= 16) {
    const auto tbc =
        machine("fermi-slp.yaml", {{"compaction.mechanism", "tbc"}, {"compaction.permutation", "balanced"}});
    sim::TimingOptions rtl;
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

// CAPRI skips the synchronizations that cannot pay (uniform loops) and keeps those that do (divergent loops).
TEST(TimingCompactionEffect, CapriSkipsUniformLoopsAndCompactsDivergentOnes) {
  const auto run = [](const std::string& name, const std::string& mechanism) {
    const nlohmann::json t = run_timing_child(
        launch::load_launch(workload_launch(name)),
        machine("fermi-slp.yaml",
                {{"compaction.mechanism", mechanism}, {"compaction.permutation", "balanced"}}));
    EXPECT_FALSE(t.contains("error")) << name << " " << mechanism << ": " << t.value("error", "");
    return t["stats"];
  };
  // recursive_gaussian: every thread runs the same serial loops; TBC synchronizes each iteration.
  const nlohmann::json uniform_tbc = run("recursive_gaussian", "tbc");
  const nlohmann::json uniform_capri = run("recursive_gaussian", "capri");
  EXPECT_LT(uniform_capri["compaction"]["cta_branches"].get<uint64_t>() * 4,
            uniform_tbc["compaction"]["cta_branches"].get<uint64_t>());
  EXPECT_GT(uniform_capri["compaction"]["capri_skipped"].get<uint64_t>(), 0u);
  EXPECT_LT(uniform_capri["cycles"].get<uint64_t>(), uniform_tbc["cycles"].get<uint64_t>());
  // mandelbrot: threads leave the escape-time loop at different iterations; compaction pays.
  const nlohmann::json divergent_none = run("mandelbrot", "none");
  const nlohmann::json divergent_capri = run("mandelbrot", "capri");
  EXPECT_GT(divergent_capri["compaction"]["compacted_paths"].get<uint64_t>(), 0u);
  EXPECT_GT(divergent_capri["compaction"]["capri_skipped"].get<uint64_t>(), 0u);
  EXPECT_LT(divergent_capri["warp_instructions"].get<uint64_t>(),
            divergent_none["warp_instructions"].get<uint64_t>());
  EXPECT_LT(divergent_capri["cycles"].get<uint64_t>(), divergent_none["cycles"].get<uint64_t>());
}

}  // namespace

namespace {

// Every permutation under TBC and CAPRI keeps the functional model's outputs (kernels with divergence; under
// CAPRI, mummer and ray_trace send split warps off the path and hand their threads back to entries pushed
// meanwhile, docs/slp.md "CAPRI").
TEST(TimingCompactionEffect, EveryPermutationKeepsTheOutputs) {
  for (const std::string name : {"bitonic", "bfs", "reduction", "mummer", "ray_trace"}) {
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

namespace {

// Warps the compactor forms from several CTA warps pass a barrier together: every part arrives for its CTA
// warp and the formed warp goes on when all of them are released.
using Sets = std::vector<std::pair<std::string, std::string>>;
const std::vector<std::pair<std::string, Sets>> kMechanisms = {
    {"none", {{"compaction.mechanism", "none"}}},
    {"tbc", {{"compaction.mechanism", "tbc"}}},
    {"tbc+balanced", {{"compaction.mechanism", "tbc"}, {"compaction.permutation", "balanced"}}},
    {"capri+balanced", {{"compaction.mechanism", "capri"}, {"compaction.permutation", "balanced"}}},
    {"ideal", {{"compaction.mechanism", "ideal"}}}};

// Runs the launch under every mechanism; checks the output against `expected` (and the functional model)
// and that exactly one barrier completed. Returns the compaction statistics per mechanism.
std::map<std::string, nlohmann::json> run_barrier_kernel(const std::string& yaml,
                                                         const std::vector<uint8_t>& expected) {
  const launch::Launch l = launch::load_launch(source_path("testbenches/timing/" + yaml));
  launch::Session session(l, session_options());
  EXPECT_EQ(session.run().buffers.at("out"), expected);
  std::map<std::string, nlohmann::json> compaction;
  for (const auto& [name, sets] : kMechanisms) {
    const nlohmann::json t = run_timing_child(l, machine("fermi-slp.yaml", sets));
    EXPECT_FALSE(t.contains("error")) << name << ": " << t.value("error", "");
    if (t.contains("error")) continue;
    EXPECT_EQ(t["sha256"]["out"], launch::sha256_hex(expected)) << name;
    EXPECT_EQ(t["stats"]["barriers"], 1u) << name;
    compaction[name] = t["stats"]["compaction"];
  }
  return compaction;
}

std::vector<uint8_t> words(const std::vector<uint32_t>& values) {
  std::vector<uint8_t> bytes(values.size() * 4);
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

TEST(TimingCompactionBarriers, FormedWarpsOfTwoCtaWarpsPassABarrier) {
  std::vector<uint32_t> out(128, 0);
  for (uint32_t tid = 0; tid < 128; tid += 2) out[tid] = 3 * ((tid + 64) % 128);
  auto compaction = run_barrier_kernel("barrier_after_exit.yaml", words(out));
  // Both paths (16 odd and 16 even threads of each of the 4 warps) go from 4 warps to 2, each formed warp
  // holding threads of two CTA warps.
  for (const std::string name : {"tbc+balanced", "capri+balanced", "ideal"}) {
    const nlohmann::json& c = compaction[name];
    EXPECT_EQ(c["paths"], 2u) << name;
    EXPECT_EQ(c["compacted_paths"], 2u) << name;
    EXPECT_EQ(c["warps_no_tbc"], 8u) << name;
    EXPECT_EQ(c["warps_formed"], 4u) << name;
  }
  EXPECT_EQ(compaction["tbc"]["compacted_paths"], 0u);
}

// Ideal compaction packs the 85 remaining threads (21, 21, 22 and 21 of the four CTA warps) in order, so CTA
// warp 1's threads arrive in two formed warps and wait as one: all of them receive the barrier's count of
// the 43 threads t % 3 == 1 (bar.red.popc).
TEST(TimingCompactionBarriers, ACtaWarpSplitOverTwoFormedWarpsWaitsAsOne) {
  std::vector<uint32_t> out(128, 0);
  for (uint32_t tid = 0; tid < 128; ++tid) {
    if (tid % 3 != 0) out[tid] = 43 * 1000 + 3 * (tid < 66 ? tid + 60 : tid - 66);
  }
  auto compaction = run_barrier_kernel("barrier_after_exit_thirds.yaml", words(out));
  EXPECT_EQ(compaction["ideal"]["warps_formed"], 5u);  // 43 leaving threads in 2 warps, 85 staying in 3
  EXPECT_EQ(compaction["ideal"]["warps_no_tbc"], 8u);
}

}  // namespace
