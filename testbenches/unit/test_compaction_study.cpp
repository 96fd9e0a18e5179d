// The CTA-wide compaction study (studies/compaction_study.hpp) on the workload suite: same outputs and,
// without compaction, the same instruction counts as the functional runner; every mechanism between ideal and
// none.
#include <gtest/gtest.h>

#include <filesystem>

#include "studies/compaction_study.hpp"
#include "workloads/reference/reference.hpp"

using namespace simtlm;
namespace fs = std::filesystem;

namespace {

launch::Launch workload(const std::string& name) {
  return launch::load_launch(fs::path(SIMTLM_SOURCE_DIR) / "workloads" / name / (name + ".yaml"));
}

launch::SessionOptions options() {
  launch::SessionOptions o;
  o.find_reference = workloads::find_reference;
  o.capture_printf = true;
  return o;
}

const std::vector<hw::NamedPermutation> kAll(std::begin(hw::kAllNamedPermutations),
                                             std::end(hw::kAllNamedPermutations));

size_t index_of(const studies::CompactionStudy& s, const std::string& mechanism) {
  return static_cast<size_t>(std::find(s.mechanisms.begin(), s.mechanisms.end(), mechanism) -
                             s.mechanisms.begin());
}

class CompactionStudyWorkload : public ::testing::TestWithParam<std::string> {};

TEST_P(CompactionStudyWorkload, MatchesFunctionalAndIsBoundedByIdeal) {
  launch::Session session(workload(GetParam()), options());
  const launch::SessionResult functional = session.run();
  auto image = session.prepare_device();
  const studies::CompactionStudy s = studies::run_compaction_study(session, *image, kAll, 1, nullptr, true);
  EXPECT_EQ(s.buffers, functional.buffers);
  // The per-path log adds up to the per-class totals.
  std::vector<uint64_t> logged(s.mechanisms.size(), 0);
  for (const studies::PathRecord& r : s.paths) {
    for (size_t m = 0; m < logged.size(); ++m) logged[m] += r.warps[m];
  }
  for (size_t m = 0; m < logged.size(); ++m) {
    EXPECT_EQ(logged[m], s.p_branches[m].warps + s.d_branches[m].warps) << s.mechanisms[m];
  }
  EXPECT_EQ(s.paths.size(), s.p_branches[0].paths + s.d_branches[0].paths);
  EXPECT_EQ(s.thread_instructions, functional.stats.thread_instructions);
  // Without compaction each CTA warp with a thread on the path issues, as under per-warp stacks.
  EXPECT_EQ(s.warp_instructions[index_of(s, "no_tbc")], functional.stats.warp_instructions);
  const size_t ideal = index_of(s, "ideal"), none = index_of(s, "no_tbc");
  uint64_t divergent = 0;
  for (const auto& [pc, b] : s.branches) {
    divergent += b.divergent;
    // A divergent CTA-wide branch makes two paths, counted under its class in every mechanism.
    for (const studies::MechanismCounts& c : b.by_mechanism) EXPECT_EQ(c.paths, 2 * b.divergent) << pc;
  }
  for (size_t m = 0; m < s.mechanisms.size(); ++m) {
    EXPECT_GE(s.warp_instructions[m], s.warp_instructions[ideal]) << s.mechanisms[m];
    EXPECT_LE(s.warp_instructions[m], s.warp_instructions[none]) << s.mechanisms[m];
    EXPECT_EQ(s.p_branches[m].paths + s.d_branches[m].paths, 2 * divergent);
    EXPECT_LE(s.p_branches[m].compacted, s.p_branches[ideal].compacted) << s.mechanisms[m];
    EXPECT_LE(s.d_branches[m].compacted, s.d_branches[ideal].compacted) << s.mechanisms[m];
    uint64_t binned = 0;
    for (uint64_t n : s.p_branches[m].paths_by_fraction) binned += n;
    EXPECT_EQ(binned, s.p_branches[m].paths);
  }
  EXPECT_EQ(s.p_branches[none].compacted + s.d_branches[none].compacted, 0u);
}

INSTANTIATE_TEST_SUITE_P(Suite, CompactionStudyWorkload, ::testing::ValuesIn(workloads::reference_names()),
                         [](const auto& info) { return info.param; });

// The SLP paper's central observation on bitonic sort: TBC compacts none of its P-branch paths because the
// divergence is aligned across warps; Balanced compacts every path that ideal compaction can.
TEST(CompactionStudy, BitonicPBranchesNeedThePermutation) {
  launch::Session session(workload("bitonic"), options());
  auto image = session.prepare_device();
  const studies::CompactionStudy s = studies::run_compaction_study(session, *image, kAll);
  const studies::MechanismCounts& ideal = s.p_branches[index_of(s, "ideal")];
  ASSERT_GT(ideal.compacted, 0u);
  EXPECT_EQ(s.p_branches[index_of(s, "tbc+identity")].compacted, 0u);
  EXPECT_EQ(s.p_branches[index_of(s, "tbc+balanced")].compacted, ideal.compacted);
  EXPECT_LT(s.p_branches[index_of(s, "tbc+odd_even")].compacted, ideal.compacted);
}

TEST(CompactionStudy, BarrierOnPartOfAPathIsReported) {
  launch::Session session(
      launch::load_launch(fs::path(SIMTLM_SOURCE_DIR) / "testbenches/timing/deadlock.yaml"), options());
  auto image = session.prepare_device();
  try {
    studies::run_compaction_study(session, *image, kAll);
    FAIL() << "expected an error";
  } catch (const ptx::KernelError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("a barrier that only part of the CTA reaches"), std::string::npos) << what;
    EXPECT_NE(what.find("kernel wait_for_absent_threads, CTA (0,0,0), PC 0 (PTX line 8)"), std::string::npos)
        << what;
  }
}

}  // namespace
