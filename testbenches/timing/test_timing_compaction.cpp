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

// Whole statistics documents are compared as written (every key, parts and rows included), but for the
// host's facts.
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
    const sim::ChildResult t = run_timing_child(
        l, machine("fermi-slp.yaml",
                   {{"compaction.mechanism", mechanism}, {"compaction.permutation", "balanced"}}));
    ASSERT_TRUE(t.ok()) << mechanism << ": " << t.error;
    EXPECT_TRUE(t.failures.empty()) << failures_text(t);
    for (const auto& [name, bytes] : functional.buffers) {
      EXPECT_EQ(t.sha256.at(name), launch::sha256_hex(bytes)) << mechanism << " " << name;
    }
    const stats::Group s = t.stats();
    const size_t m = index(mechanism == std::string("tbc") ? "tbc+balanced" : "ideal");
    EXPECT_EQ(s.integer("thread_instructions"), functional.stats.thread_instructions) << mechanism;
    EXPECT_EQ(s.integer("warp_instructions"), study.warp_instructions[m]) << mechanism;
    const stats::Group& c = s.group("compaction");
    EXPECT_EQ(c.integer("p_paths"), study.p_branches[m].paths) << mechanism;
    EXPECT_EQ(c.integer("p_compacted"), study.p_branches[m].compacted) << mechanism;
    EXPECT_EQ(c.integer("d_paths"), study.d_branches[m].paths) << mechanism;
    EXPECT_EQ(c.integer("d_compacted"), study.d_branches[m].compacted) << mechanism;
  }
  // CAPRI: whatever it decides to skip, the outputs and the work are the functional run's.
  const sim::ChildResult capri = run_timing_child(
      l,
      machine("fermi-slp.yaml", {{"compaction.mechanism", "capri"}, {"compaction.permutation", "balanced"}}));
  ASSERT_TRUE(capri.ok()) << capri.error;
  for (const auto& [name, bytes] : functional.buffers)
    EXPECT_EQ(capri.sha256.at(name), launch::sha256_hex(bytes));
  EXPECT_EQ(capri.stats().integer("thread_instructions"), functional.stats.thread_instructions);
  // --rtl permutation,compactor --rtl-check (the RTL compactor holds 16 warps per CTA).
  if ((l.block.count() + 31) / 32 <= 16) {
    const auto tbc =
        machine("fermi-slp.yaml", {{"compaction.mechanism", "tbc"}, {"compaction.permutation", "balanced"}});
    sim::TimingOptions rtl;
    rtl.units = hw::parse_rtl_units("permutation,compactor", true);
    const sim::ChildResult a = run_timing_child(l, tbc), b = run_timing_child(l, tbc, rtl);
    ASSERT_TRUE(b.ok()) << b.error;
    EXPECT_EQ(without_host(a.stats_json).dump(), without_host(b.stats_json).dump());
  }
}

INSTANTIATE_TEST_SUITE_P(Suite, TimingCompaction, ::testing::ValuesIn(workloads::reference_names()),
                         [](const auto& info) { return info.param; });

// Balanced lets TBC compact bitonic's aligned P-branches; without a permutation it compacts none of them,
// and the kernel issues fewer warp instructions and finishes sooner than without compaction.
TEST(TimingCompactionEffect, BitonicNeedsThePermutation) {
  const launch::Launch l = launch::load_launch(workload_launch("bitonic"));
  const sim::ChildResult none_run = run_timing_child(l, machine("fermi-slp.yaml"));
  const sim::ChildResult tbc_run =
      run_timing_child(l, machine("fermi-slp.yaml", {{"compaction.mechanism", "tbc"}}));
  const sim::ChildResult slp_run = run_timing_child(
      l,
      machine("fermi-slp.yaml", {{"compaction.mechanism", "tbc"}, {"compaction.permutation", "balanced"}}));
  ASSERT_TRUE(none_run.ok() && tbc_run.ok() && slp_run.ok());
  const stats::Group none = none_run.stats(), tbc = tbc_run.stats(), slp = slp_run.stats();
  EXPECT_EQ(tbc.group("compaction").integer("p_compacted"), 0u);
  EXPECT_GT(slp.group("compaction").integer("p_compacted"), 0u);
  EXPECT_LT(slp.integer("warp_instructions"), tbc.integer("warp_instructions"));
  EXPECT_LT(slp.integer("cycles"), none.integer("cycles"));
  EXPECT_GT(slp.real("simd_utilization"), none.real("simd_utilization"));
}

// CAPRI skips the synchronizations that cannot pay (uniform loops) and keeps those that do (divergent loops).
TEST(TimingCompactionEffect, CapriSkipsUniformLoopsAndCompactsDivergentOnes) {
  const auto run = [](const std::string& name, const std::string& mechanism) {
    const sim::ChildResult t = run_timing_child(
        launch::load_launch(workload_launch(name)),
        machine("fermi-slp.yaml",
                {{"compaction.mechanism", mechanism}, {"compaction.permutation", "balanced"}}));
    EXPECT_TRUE(t.ok()) << name << " " << mechanism << ": " << t.error;
    return t.stats();
  };
  // recursive_gaussian: every thread runs the same serial loops; TBC synchronizes each iteration.
  const stats::Group uniform_tbc = run("recursive_gaussian", "tbc");
  const stats::Group uniform_capri = run("recursive_gaussian", "capri");
  EXPECT_LT(uniform_capri.group("compaction").integer("cta_branches") * 4,
            uniform_tbc.group("compaction").integer("cta_branches"));
  EXPECT_GT(uniform_capri.group("compaction").integer("capri_skipped"), 0u);
  EXPECT_LT(uniform_capri.integer("cycles"), uniform_tbc.integer("cycles"));
  // mandelbrot: threads leave the escape-time loop at different iterations; compaction pays.
  const stats::Group divergent_none = run("mandelbrot", "none");
  const stats::Group divergent_capri = run("mandelbrot", "capri");
  EXPECT_GT(divergent_capri.group("compaction").integer("compacted_paths"), 0u);
  EXPECT_GT(divergent_capri.group("compaction").integer("capri_skipped"), 0u);
  EXPECT_LT(divergent_capri.integer("warp_instructions"), divergent_none.integer("warp_instructions"));
  EXPECT_LT(divergent_capri.integer("cycles"), divergent_none.integer("cycles"));
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
        const sim::ChildResult t = run_timing_child(
            l, machine("default.yaml", {{"compaction.mechanism", mechanism},
                                        {"compaction.permutation", std::string(hw::permutation_name(p))}}));
        ASSERT_TRUE(t.ok()) << name << " " << mechanism << " " << hw::permutation_name(p) << ": " << t.error;
        for (const auto& [buffer, bytes] : functional.buffers) {
          EXPECT_EQ(t.sha256.at(buffer), launch::sha256_hex(bytes))
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
// A mechanism whose run ended with an error has no entry (reading it throws).
std::map<std::string, stats::Group> run_barrier_kernel(const std::string& yaml,
                                                       const std::vector<uint8_t>& expected) {
  const launch::Launch l = launch::load_launch(source_path("testbenches/timing/" + yaml));
  launch::Session session(l, session_options());
  EXPECT_EQ(session.run().buffers.at("out"), expected);
  std::map<std::string, stats::Group> compaction;
  for (const auto& [name, sets] : kMechanisms) {
    const sim::ChildResult t = run_timing_child(l, machine("fermi-slp.yaml", sets));
    EXPECT_TRUE(t.ok()) << name << ": " << t.error;
    if (!t.ok()) continue;
    EXPECT_EQ(t.sha256.at("out"), launch::sha256_hex(expected)) << name;
    const stats::Group s = t.stats();
    EXPECT_EQ(s.integer("barriers"), 1u) << name;
    compaction.emplace(name, s.group("compaction"));
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
  const auto compaction = run_barrier_kernel("barrier_after_exit.yaml", words(out));
  // Both paths (16 odd and 16 even threads of each of the 4 warps) go from 4 warps to 2, each formed warp
  // holding threads of two CTA warps.
  for (const std::string name : {"tbc+balanced", "capri+balanced", "ideal"}) {
    const stats::Group& c = compaction.at(name);
    EXPECT_EQ(c.integer("paths"), 2u) << name;
    EXPECT_EQ(c.integer("compacted_paths"), 2u) << name;
    EXPECT_EQ(c.integer("warps_no_tbc"), 8u) << name;
    EXPECT_EQ(c.integer("warps_formed"), 4u) << name;
  }
  EXPECT_EQ(compaction.at("tbc").integer("compacted_paths"), 0u);
}

// Ideal compaction packs the 85 remaining threads (21, 21, 22 and 21 of the four CTA warps) in order, so CTA
// warp 1's threads arrive in two formed warps and wait as one: all of them receive the barrier's count of
// the 43 threads t % 3 == 1 (bar.red.popc).
TEST(TimingCompactionBarriers, ACtaWarpSplitOverTwoFormedWarpsWaitsAsOne) {
  std::vector<uint32_t> out(128, 0);
  for (uint32_t tid = 0; tid < 128; ++tid) {
    if (tid % 3 != 0) out[tid] = 43 * 1000 + 3 * (tid < 66 ? tid + 60 : tid - 66);
  }
  const auto compaction = run_barrier_kernel("barrier_after_exit_thirds.yaml", words(out));
  EXPECT_EQ(compaction.at("ideal").integer("warps_formed"),
            5u);  // 43 leaving threads in 2 warps, 85 staying in 3
  EXPECT_EQ(compaction.at("ideal").integer("warps_no_tbc"), 8u);
}

}  // namespace
