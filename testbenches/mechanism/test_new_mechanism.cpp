// What a new divergence mechanism costs (issue 27): this file is all of one. A round-robin lane shuffle puts
// CTA warp w's threads in lanes rotated by w (as the branch unit, the trace and the waveform see them) on top
// of per-warp stacks, counts its own statistics, and is registered by name. Nothing else in the tree names
// it: the configuration accepts divergence.unit: lane_shuffle, the SM builds it, and stats.json holds its
// group.
#include <bit>
#include <cstdint>
#include <string>

#include "hw/divergence/unit_registry.hpp"
#include "hw/divergence/warp_stacks.hpp"
#include "testbenches/timing/timing_fixture.hpp"

namespace simtlm::hw {
namespace {

class LaneShuffle final : public WarpStacks {
 public:
  using WarpStacks::WarpStacks;

  static const stats::GroupDecl& decl() {
    static const stats::GroupDecl d = [] {
      stats::GroupDecl g("lane_shuffle",
                         "round-robin lane shuffle (testbenches/timing/test_new_mechanism.cpp)");
      g.counter("issues", "issues", "warp instructions issued")
          .counter("rotated_issues", "issues", "of them, by a CTA warp whose lanes moved (w mod 32 != 0)");
      return g;
    }();
    return d;
  }

  void before_issue(uint32_t slot, uint32_t pc, uint64_t now) override {
    ++issues_;
    if (shift(slot) != 0) ++rotated_;
    WarpStacks::before_issue(slot, pc, now);
  }
  SlotView view(uint32_t slot) const override {
    SlotView v = WarpStacks::view(slot);
    v.lanes = std::rotl(v.lanes, static_cast<int>(shift(slot)));
    return v;
  }
  ptx::LaneMask taken_lanes(uint32_t slot, const PartMasks& taken) const override {
    return std::rotl(WarpStacks::taken_lanes(slot, taken), static_cast<int>(shift(slot)));
  }
  void add_statistics(stats::Group& run) const override {
    stats::Group& g = run.group("lane_shuffle");
    g.set("issues", g.integer("issues") + issues_);  // one unit per SM: the run's group sums them
    g.set("rotated_issues", g.integer("rotated_issues") + rotated_);
  }

 private:
  uint32_t shift(uint32_t slot) const { return slots_[slot].parts[0].warp % ptx::kWarpSize; }
  uint64_t issues_ = 0, rotated_ = 0;
};

// Its registration: a name, its traits, its maker and its statistics.
const DivergenceUnitRegistration kLaneShuffle({
    MechanismTraits{UnitKind::registered, "lane_shuffle", Compaction::none, false, false, WorkKind::grid_ctas,
                    "lane_shuffle", "issue 27"},
    [](const DivergenceParams& params, const TimingKernel& kernel, SlotHost& host, const CompactionUnits&)
        -> std::unique_ptr<DivergenceUnit> { return std::make_unique<LaneShuffle>(params, kernel, host); },
    &LaneShuffle::decl(),
});

using timing_test::machine;
using timing_test::run_timing_child;
using timing_test::source_path;

TEST(NewMechanism, ALaneShuffleRegisteredInOneFileRunsThroughTheWholeModel) {
  // 39 CTAs of 256 threads: every thread adds (no early exit), so every warp issues the same instructions.
  launch::Launch l = launch::load_launch(source_path("testbenches/timing/stream_add.yaml"));
  l.grid.x = 39;
  const sim::ChildResult shuffled =
      run_timing_child(l, machine("default.yaml", {{"divergence.unit", "lane_shuffle"}}));
  const sim::ChildResult stacks =
      run_timing_child(l, machine("default.yaml", {{"divergence.unit", "warp_stacks"}}));
  ASSERT_TRUE(shuffled.ok()) << shuffled.error;
  ASSERT_TRUE(stacks.ok()) << stacks.error;
  const stats::Group s = shuffled.stats();
  const stats::Group& mine = s.group("lane_shuffle");
  // Its own statistics, counted exactly: every issue, and 7 of the 8 warps of each CTA moved.
  EXPECT_EQ(mine.integer("issues"), s.integer("warp_instructions"));
  EXPECT_EQ(mine.integer("rotated_issues"), s.integer("warp_instructions") / 8 * 7);
  EXPECT_GT(mine.integer("issues"), 0u);
  // The lanes moved only as the branch unit and the trace see them: outputs, cycles and every other
  // statistic are those of per-warp stacks (the whole documents as written, but for the unit's group).
  EXPECT_EQ(shuffled.sha256, stacks.sha256);
  nlohmann::json rest = shuffled.stats_json, stacks_rest = stacks.stats_json;
  rest.erase("lane_shuffle");
  stacks_rest.erase("lane_shuffle");  // declared for every run, zero under another unit
  EXPECT_EQ(rest, stacks_rest);
  EXPECT_EQ(s.group("compaction").get("mechanism").text(), "none");
}

TEST(NewMechanism, ItsNameIsAConfigurationChoiceAndTakenNamesAreRefused) {
  config::MachineConfig c;
  c.set("divergence.unit", "lane_shuffle", "test");
  const DivergenceParams d = divergence_params(c);
  EXPECT_EQ(d.unit, UnitKind::registered);
  EXPECT_EQ(d.traits().name, "lane_shuffle");
  EXPECT_EQ(find_unit("lane_shuffle")->stats, &LaneShuffle::decl());
  EXPECT_THROW(DivergenceUnitRegistration(*find_unit("tbc")), std::logic_error);
  EXPECT_THROW(c.set("divergence.unit", "lane_shufle", "test"), config::ConfigError);
}

}  // namespace
}  // namespace simtlm::hw
