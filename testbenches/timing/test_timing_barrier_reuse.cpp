// A warp slot freed by a warp that exited early is taken by a later CTA while the first CTA still waits at
// its barrier. Before issue 12 the release of the first CTA's barrier re-examined every slot the first CTA
// had held, the reused one included, and let the later CTA's warp past its own barrier before its CTA
// arrived: it read shared memory not yet written (barrier_slot_reuse.cu). Barriers now release only their own
// CTA's slots. Per-warp stacks only: under compaction a CTA keeps its slots until it completes, so none is
// reused early (and this kernel, whose exiting threads wait on the CTA-wide stack below the path that reaches
// the barrier, deadlocks there: a known limitation of the compaction model, docs/timing-model.md).
#include <gtest/gtest.h>

#include "testbenches/timing/timing_fixture.hpp"

namespace simtlm::timing_test {
namespace {

TEST(TimingBarrierReuse, ABarrierReleasesOnlyItsOwnCtasWarpsWhenASlotWasReused) {
  const launch::Launch l = launch::load_launch(source_path("testbenches/timing/barrier_slot_reuse.yaml"));
  launch::Session session(l, session_options());
  const std::vector<uint8_t> expected = session.run().buffers.at("out");
  const sim::ChildResult t =
      run_timing_child(l, machine("default.yaml", {{"gpu.sms", "1"}, {"gpu.max_warps_per_sm", "8"}}));
  ASSERT_TRUE(t.ok()) << t.error;
  EXPECT_EQ(t.sha256.at("out"), launch::sha256_hex(expected));
  const stats::Group s = t.stats();
  EXPECT_EQ(s.integer("barriers"), 3u);
  EXPECT_EQ(s.integer("ctas"), 3u);
  EXPECT_EQ(s.list("sms").at(0).integer("max_resident_ctas"), 2u);
}

}  // namespace
}  // namespace simtlm::timing_test
