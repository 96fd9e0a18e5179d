// Co-simulation of the units on the workload suite: the C++ models against the Verilated twins, both behind
// the hw::UnitSet interfaces (the --cc twins, as `--rtl-check` runs them) and as SystemC modules (the --sc
// twins), driven by the branch masks and load addresses the functional model produced on every workload.
// Also: the unit selection (`--rtl` parsing, widths) and the RtlMismatch report of the checking wrappers.
//
// SystemC allows one elaboration per process, so ctest runs each test alone (DISCOVERY_MODE PRE_TEST) and
// this file has its own main.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <systemc>
#include <vector>

#include "hw/units/select/unit_set.hpp"
#include "hw/units/width.hpp"
#include "testbenches/rtl/cosim/replay.hpp"
#include "testbenches/rtl/vectors.hpp"  // gtest printers of the unit outputs

namespace simtlm::cosim {
namespace {

// A second test in the same process cannot build modules; say so instead of dying in the kernel.
bool claim_elaboration() {
  static bool claimed = false;
  const bool first = !claimed;
  claimed = true;
  return first;
}

std::string counts_text(const WorkloadTrace& trace) {
  return trace.workload + ": " + std::to_string(trace.branches.size()) + " conditional branches, " +
         std::to_string(trace.loads.size()) + " global loads, " + std::to_string(trace.compactions.size()) +
         " compactions recorded";
}

hw::UnitSelection all_units_checked() {
  return hw::parse_rtl_units("all", /*check=*/true);
}

class Workload : public ::testing::TestWithParam<std::string> {};

// Every recorded event through the checking wrappers: C++ model and --cc twin on each call.
TEST_P(Workload, CheckedUnitSetAgreesOnEveryEvent) {
  ASSERT_TRUE(claim_elaboration()) << "one SystemC test per process: use --gtest_filter (ctest does)";
  const WorkloadTrace trace = record_workload(SIMTLM_SOURCE_DIR, GetParam());
  SCOPED_TRACE(counts_text(trace));
  std::cout << counts_text(trace) << "\n";
  ASSERT_EQ(trace.branches.size(), trace.stats.branches) << "recorder missed conditional branches";
  uint64_t cycle = 0;
  hw::UnitSet units = hw::make_unit_set(all_units_checked(), kScTwinWidth, hw::UnitOptions{}, &cycle);
  UnitSetReplay replay("replay", units, trace, cycle);
  sc_core::sc_start();
  ASSERT_FALSE(replay.mismatch) << replay.mismatch->what();
  EXPECT_EQ(replay.counts.votes, trace.branches.size());
  EXPECT_EQ(replay.counts.permutations, trace.branches.size());
  EXPECT_EQ(replay.counts.selections, trace.loads.size());
  EXPECT_EQ(replay.counts.compactions, trace.compactions.size());
  std::cout << "checked evaluations: " << replay.counts.votes << " votes, " << replay.counts.permutations
            << " permutations, " << replay.counts.selections << " selections, " << replay.counts.compactions
            << " compactor loads and " << replay.counts.compacted_warps << " compacted warps\n";
}

// The same events through the --sc twins as SystemC modules, one delta cycle per combinational evaluation and
// a clock cycle of two delta cycles per step of the clocked units.
TEST_P(Workload, ScTwinsAgreeOnEveryEvent) {
  ASSERT_TRUE(claim_elaboration()) << "one SystemC test per process: use --gtest_filter (ctest does)";
  const WorkloadTrace trace = record_workload(SIMTLM_SOURCE_DIR, GetParam());
  SCOPED_TRACE(counts_text(trace));
  ASSERT_EQ(trace.branches.size(), trace.stats.branches) << "recorder missed conditional branches";
  ScTwinReplay replay("replay", trace);
  sc_core::sc_start();
  ASSERT_TRUE(replay.finished);

  ASSERT_EQ(replay.rtl_votes.size(), trace.branches.size());
  ASSERT_EQ(replay.model_votes.size(), trace.branches.size());
  for (size_t i = 0; i < trace.branches.size(); ++i) {
    const BranchEvent& event = trace.branches[i];
    ASSERT_EQ(replay.model_votes[i], replay.rtl_votes[i])
        << "majority, event " << i << " of " << trace.branches.size() << " (instruction " << event.instruction
        << "): taken=0x" << std::hex << event.taken << " active=0x" << event.active;
    ASSERT_EQ(replay.model_physical[i], replay.rtl_physical[i])
        << "permutation, event " << i << " of " << trace.branches.size() << ": warp "
        << permutation_warp(event) << " active=0x" << std::hex << event.active;
  }
  ASSERT_EQ(replay.rtl_herded.size(), trace.loads.size());
  ASSERT_EQ(replay.model_herded.size(), trace.loads.size());
  for (size_t i = 0; i < trace.loads.size(); ++i) {
    ASSERT_EQ(replay.model_herded[i], replay.rtl_herded[i])
        << "popular block, event " << i << " of " << trace.loads.size() << " (instruction "
        << trace.loads[i].instruction << ")";
  }
  ASSERT_EQ(replay.rtl_compacted.size(), trace.compactions.size());
  ASSERT_EQ(replay.model_compacted.size(), trace.compactions.size());
  for (size_t i = 0; i < trace.compactions.size(); ++i) {
    ASSERT_EQ(replay.model_compacted[i], replay.rtl_compacted[i])
        << "compactor, event " << i << " of " << trace.compactions.size() << " (instruction "
        << trace.compactions[i].instruction << ")";
  }
  // One delta cycle per evaluation, plus the pipeline's fill (the batch's last outputs one delta later).
  const auto pipelined = [](size_t events) { return events ? events + 1 : 0; };
  EXPECT_EQ(replay.vote_deltas, pipelined(trace.branches.size()));
  EXPECT_EQ(replay.permute_deltas, pipelined(trace.branches.size()));
  // The selector is pipelined (ROUNDS = 1): a delta for the inputs and start, then three clock edges (the one
  // that samples start and latency_cycles(1) = 2 more) of two delta cycles each.
  EXPECT_EQ(replay.select_deltas, 7 * trace.loads.size());
  EXPECT_EQ(replay.select_handshake_errors, 0u);
  // The compactor is clocked: a load takes one clock cycle plus the delta that makes its outputs readable,
  // every compacted warp one clock cycle of two delta cycles.
  uint64_t compacted_warps = 0;
  for (const auto& schedule : replay.model_compacted) compacted_warps += schedule.size();
  EXPECT_EQ(replay.compact_deltas, 3 * trace.compactions.size() + 2 * compacted_warps);
}

INSTANTIATE_TEST_SUITE_P(Suite, Workload, ::testing::ValuesIn(suite_workloads()),
                         [](const auto& info) { return info.param; });

// --- a twin made to disagree ------------------------------------------------------------------------------

// Behaves like `inner` except that call number `wrong_call` (counting from 1) answers differently.
class WrongMajority final : public hw::BranchMajority {
 public:
  explicit WrongMajority(uint64_t wrong_call) : wrong_call_(wrong_call) {}
  hw::BranchVote vote(uint64_t taken, uint64_t active) override {
    hw::BranchVote vote = inner_.vote(taken, active);
    if (++calls_ == wrong_call_) vote.herd_taken = !vote.herd_taken;
    return vote;
  }

 private:
  hw::MajorityUnit inner_{kScTwinWidth};
  uint64_t wrong_call_;
  uint64_t calls_ = 0;
};

class WrongPermutation final : public hw::LanePermutation {
 public:
  void set_mode(hw::PermutationMode mode) override { inner_.set_mode(mode); }
  void load(uint32_t warp, uint32_t xor_mask) override { inner_.load(warp, xor_mask); }
  uint32_t xor_mask(uint32_t warp) override { return inner_.xor_mask(warp) ^ 1; }
  uint32_t home_lane(uint32_t warp, uint32_t lane) override { return inner_.home_lane(warp, lane); }
  uint64_t permute_mask(uint32_t warp, uint64_t logical_mask) override {
    return inner_.permute_mask(warp, logical_mask) ^ 0x80000000u;
  }

 private:
  hw::PermutationTable inner_{kScTwinWidth};
};

// Forgets the highest warp of every lane: wrong as soon as a lane has two pending warps.
class WrongCompactor final : public hw::WarpCompaction {
 public:
  void load(std::span<const uint64_t> warp_masks) override {
    std::vector<uint64_t> masks(warp_masks.begin(), warp_masks.end());
    if (masks.size() > 1) masks.back() = 0;
    inner_.load(masks);
  }
  bool done() override { return inner_.done(); }
  hw::CompactedWarp next() override { return inner_.next(); }

 private:
  hw::PriorityEncoderCompactor inner_{kScTwinWidth};
};

class WrongBlockSelection final : public hw::BlockSelection {
 public:
  hw::HerdedLoad select(std::span<const uint64_t> address, uint64_t active, uint32_t line_shift) override {
    hw::HerdedLoad load = inner_.select(address, active, line_shift);
    load.count += 1;
    return load;
  }

 private:
  hw::PopularBlockSelector inner_{kScTwinWidth};
};

TEST(CheckedUnits, MajorityMismatchReportsCycleUnitInputsAndBothOutputs) {
  uint64_t cycle = 41;
  auto checked = hw::make_checked_majority(std::make_unique<hw::MajorityUnit>(kScTwinWidth),
                                           std::make_unique<WrongMajority>(2), &cycle);
  EXPECT_NO_THROW(checked->vote(0x1, 0x3));
  cycle = 42;
  try {
    checked->vote(0xf0, 0xff);
    FAIL() << "the disagreement was not reported";
  } catch (const hw::RtlMismatch& mismatch) {
    EXPECT_EQ(mismatch.cycle(), 42u);
    EXPECT_EQ(mismatch.unit(), "majority");
    EXPECT_STREQ(mismatch.what(),
                 "RTL mismatch in unit majority at cycle 42\n"
                 "  inputs:    taken=0xf0 active=0xff\n"
                 "  C++ model: herd_taken=0 all_taken=0 none_taken=0 uniform=0\n"
                 "  RTL twin:  herd_taken=1 all_taken=0 none_taken=0 uniform=0");
  }
}

TEST(CheckedUnits, PermutationMismatchNamesCallAndMode) {
  auto checked = hw::make_checked_permutation(std::make_unique<hw::PermutationTable>(kScTwinWidth),
                                              std::make_unique<WrongPermutation>(), nullptr);
  checked->set_mode(hw::PermutationMode::kBalanced);
  // Balanced mode: even warp 2 XORs its lanes with 2 / 2 = 1.
  EXPECT_EQ(checked->home_lane(2, 5), 4u) << "home_lane agrees and passes through";
  try {
    checked->permute_mask(2, 0x1);
    FAIL() << "the disagreement was not reported";
  } catch (const hw::RtlMismatch& mismatch) {
    EXPECT_FALSE(mismatch.cycle());
    EXPECT_EQ(mismatch.unit(), "permutation");
    EXPECT_EQ(mismatch.inputs(), "permute_mask(warp=2, logical_mask=0x1), mode balanced");
    EXPECT_EQ(mismatch.model_output(), "physical_mask=0x2");
    EXPECT_EQ(mismatch.rtl_output(), "physical_mask=0x80000002");
    EXPECT_NE(std::string(mismatch.what()).find("at cycle (unknown)"), std::string::npos) << mismatch.what();
  }
  EXPECT_THROW(checked->xor_mask(0), hw::RtlMismatch);
}

TEST(CheckedUnits, CompactorMismatchNamesLoadedMasksAndStep) {
  uint64_t cycle = 7;
  auto checked = hw::make_checked_compactor(std::make_unique<hw::PriorityEncoderCompactor>(kScTwinWidth),
                                            std::make_unique<WrongCompactor>(), &cycle);
  const std::vector<uint64_t> masks = {0x3, 0x1};
  checked->load(masks);
  try {
    checked->next();  // lane 0: warp 0 in both; the fake lost warp 1, so lane 0 is done one step early
    checked->next();
    FAIL() << "the disagreement was not reported";
  } catch (const hw::RtlMismatch& mismatch) {
    EXPECT_EQ(mismatch.cycle(), 7u);
    EXPECT_EQ(mismatch.unit(), "compactor");
    EXPECT_EQ(mismatch.inputs(), "next() after 1 next() since load(warp_masks=[0x3 0x1])");
    EXPECT_EQ(mismatch.model_output(), "lane_mask=0x1 source_warp=[1]");
    EXPECT_EQ(mismatch.rtl_output(), "lane_mask=0x0 source_warp=[0]");
  }
}

TEST(CheckedUnits, PopularBlockMismatchListsAddresses) {
  auto checked = hw::make_checked_popular_block(std::make_unique<hw::PopularBlockSelector>(kScTwinWidth),
                                                std::make_unique<WrongBlockSelection>(), nullptr);
  std::vector<uint64_t> address(kScTwinWidth, 0);
  address[0] = 0x1000;
  address[1] = 0x1004;
  try {
    checked->select(address, 0x3, kLineShift);
    FAIL() << "the disagreement was not reported";
  } catch (const hw::RtlMismatch& mismatch) {
    EXPECT_EQ(mismatch.unit(), "popular_block");
    EXPECT_EQ(mismatch.inputs().rfind("active=0x3 line_shift=7 address=[0x1000 0x1004 0x0 ", 0), 0u)
        << mismatch.inputs();
    EXPECT_EQ(mismatch.model_output().rfind("block=0x20 count=2 address=[0x1000 0x1004 ", 0), 0u)
        << mismatch.model_output();
    EXPECT_EQ(mismatch.rtl_output().rfind("block=0x20 count=3 ", 0), 0u) << mismatch.rtl_output();
  }
}

// A wrong twin injected into a real replay: the run stops at the first disagreement, dated by the cycle
// counter the wrappers read.
TEST(CoSimMismatch, ReplayStopsAtFirstDisagreementWithReport) {
  ASSERT_TRUE(claim_elaboration()) << "one SystemC test per process: use --gtest_filter (ctest does)";
  const WorkloadTrace trace = record_workload(SIMTLM_SOURCE_DIR, "bfs");
  constexpr uint64_t kWrongCall = 100;
  ASSERT_GE(trace.branches.size(), kWrongCall) << counts_text(trace);
  uint64_t cycle = 0;
  hw::UnitSet units = hw::make_unit_set(hw::UnitSelection{}, kScTwinWidth, hw::UnitOptions{}, &cycle);
  units.majority = hw::make_checked_majority(std::make_unique<hw::MajorityUnit>(kScTwinWidth),
                                             std::make_unique<WrongMajority>(kWrongCall), &cycle);
  UnitSetReplay replay("replay", units, trace, cycle);
  sc_core::sc_start();
  ASSERT_TRUE(replay.mismatch) << "the wrong twin went unnoticed";
  const BranchEvent& event = trace.branches[kWrongCall - 1];
  EXPECT_EQ(replay.mismatch->cycle(), event.instruction);
  EXPECT_EQ(replay.mismatch->unit(), "majority");
  char inputs[64];
  std::snprintf(inputs, sizeof inputs, "taken=0x%x active=0x%x", event.taken, event.active);
  EXPECT_EQ(replay.mismatch->inputs(), inputs);
  EXPECT_EQ(replay.counts.votes, kWrongCall - 1) << "evaluations before the mismatch";
  EXPECT_EQ(replay.counts.selections, 0u) << "the replay went on after the mismatch";
}

// --- selecting the units --------------------------------------------------------------------------------

TEST(UnitSelection, ParsesNamesInAnyOrderWithSpaces) {
  const hw::UnitSelection selection = hw::parse_rtl_units(" popular_block,majority ", false);
  EXPECT_FALSE(selection.rtl_permutation);
  EXPECT_TRUE(selection.rtl_majority);
  EXPECT_FALSE(selection.rtl_compactor);
  EXPECT_TRUE(selection.rtl_popular_block);
  EXPECT_FALSE(selection.check);
  EXPECT_EQ(hw::describe(selection), "permutation=c++ majority=rtl compactor=c++ popular_block=rtl");
  EXPECT_FALSE(hw::parse_rtl_units("", false).any_rtl());
  const hw::UnitSelection all = hw::parse_rtl_units("all", true);
  EXPECT_EQ(hw::describe(all),
            "permutation=rtl+check majority=rtl+check compactor=rtl+check popular_block=rtl+check");
}

TEST(UnitSelection, RejectsUnknownNamesListingTheValidOnes) {
  try {
    hw::parse_rtl_units("majority,permutaton", false);
    FAIL() << "accepted a misspelt unit";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(
        error.what(),
        "--rtl \"majority,permutaton\": unknown unit \"permutaton\"; valid units: permutation, majority, "
        "compactor, popular_block (or all)");
  }
  EXPECT_THROW(hw::parse_rtl_units("majority,", false), std::invalid_argument);
  EXPECT_THROW(hw::parse_rtl_units("", true), std::invalid_argument) << "--rtl-check with nothing to check";
}

TEST(UnitSelection, WidthsAndOptionsWithoutTwinAreErrors) {
  const hw::UnitSelection majority = hw::parse_rtl_units("majority", false);
  try {
    hw::make_unit_set(majority, 24, hw::UnitOptions{}, nullptr);
    FAIL() << "accepted a width without twins";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "--rtl: the Verilated twins exist for SIMD widths 8, 16, 32 and 64, not 24");
  }
  hw::UnitOptions options;
  options.address_bits = 32;
  EXPECT_NO_THROW(hw::make_unit_set(majority, 32, options, nullptr))
      << "the C++ selector takes 32-bit addresses";
  EXPECT_THROW(hw::make_unit_set(hw::parse_rtl_units("popular_block", false), 32, options, nullptr),
               std::invalid_argument);
  options = {};
  options.compactor_max_warps = 32;
  EXPECT_THROW(hw::make_unit_set(hw::parse_rtl_units("compactor", false), 32, options, nullptr),
               std::invalid_argument);
  options = {};
  options.permutation_warp_ids = 128;
  EXPECT_THROW(hw::make_unit_set(hw::parse_rtl_units("permutation", false), 32, options, nullptr),
               std::invalid_argument);
}

// Every width and the tie rule reach the right twin: the RTL-only set answers like the C++ set.
TEST(UnitSelection, RtlOnlySetsAnswerLikeTheModelsAtEveryWidth) {
  for (const uint32_t width : {8u, 16u, 32u, 64u}) {
    for (const hw::MajorityTie tie : {hw::MajorityTie::kNotTaken, hw::MajorityTie::kTaken}) {
      SCOPED_TRACE("W=" + std::to_string(width) + (tie == hw::MajorityTie::kTaken ? " ties taken" : ""));
      hw::UnitOptions options;
      options.majority_tie = tie;
      hw::UnitSet rtl = hw::make_unit_set(hw::parse_rtl_units("all", false), width, options, nullptr);
      hw::UnitSet cpp = hw::make_unit_set(hw::UnitSelection{}, width, options, nullptr);
      const uint64_t half = hw::lane_mask_of(width / 2);  // a tie: half of the active lanes taken
      EXPECT_EQ(rtl.majority->vote(half, hw::lane_mask_of(width)),
                cpp.majority->vote(half, hw::lane_mask_of(width)));
      rtl.permutation->set_mode(hw::PermutationMode::kBalanced);
      cpp.permutation->set_mode(hw::PermutationMode::kBalanced);
      EXPECT_EQ(rtl.permutation->permute_mask(5, 0x5), cpp.permutation->permute_mask(5, 0x5));
      const std::vector<uint64_t> masks = {0x3, 0x6, 0x1};
      EXPECT_EQ(hw::compact_all(*rtl.compactor, masks), hw::compact_all(*cpp.compactor, masks));
      std::vector<uint64_t> address(width);
      for (uint32_t lane = 0; lane < width; ++lane) address[lane] = 0x10000 + 0x40 * (lane % 3) + lane;
      EXPECT_EQ(rtl.popular_block->select(address, hw::lane_mask_of(width), kLineShift),
                cpp.popular_block->select(address, hw::lane_mask_of(width), kLineShift));
    }
  }
}

// Threads of this process, from /proc/self/status.
int thread_count() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
  }
  return -1;
}

// The timing driver forks its simulation after building the twins. A Verilator worker thread alive at the
// fork can hold an allocator lock the child then waits for forever (it hung the sanitized timing tests), and
// the twins are single-threaded models: building them must start no thread.
TEST(UnitSelection, TwinsStartNoThread) {
  const int before = thread_count();
  ASSERT_GT(before, 0);
  std::vector<hw::UnitSet> sets;
  for (const uint32_t width : {8u, 16u, 32u, 64u}) {
    sets.push_back(hw::make_unit_set(hw::parse_rtl_units("all", true), width, hw::UnitOptions{}, nullptr));
  }
  EXPECT_EQ(thread_count(), before);
}

}  // namespace
}  // namespace simtlm::cosim

int sc_main(int, char**) {
  return RUN_ALL_TESTS();
}

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return sc_core::sc_elab_and_sim(argc, argv);
}
