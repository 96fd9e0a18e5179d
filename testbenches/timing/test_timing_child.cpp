// The forked child's document read in one place (sim::read_child_result): what studies and demos read.
#include "testbenches/timing/timing_fixture.hpp"

namespace simtlm::sim {
namespace {

using timing_test::machine;
using timing_test::session_options;
using timing_test::source_path;

TEST(TimingChild, TheTypedResultHoldsWhatTheDocumentSays) {
  const launch::Launch l = launch::load_launch(source_path("testbenches/timing/stream_add.yaml"));
  ChildReport extra;
  extra.buffers = true;
  const nlohmann::json doc = run_timing_in_child(l, session_options(), machine("default.yaml"), {}, extra);
  ASSERT_FALSE(doc.contains("error")) << doc.dump().substr(0, 300);
  ASSERT_TRUE(doc["sha256"].contains("c")) << doc["sha256"].dump();
  const ChildResult r = read_child_result(doc);
  ASSERT_TRUE(r.passed()) << r.problem();
  EXPECT_EQ(r.problem(), "");
  EXPECT_EQ(r.cycles(), doc["stats"]["cycles"].get<uint64_t>());
  EXPECT_EQ(r.stats().integer("warp_instructions"), doc["stats"]["warp_instructions"].get<uint64_t>());
  ASSERT_EQ(r.sha256.size(), 3u);  // a, b and c
  EXPECT_EQ(r.sha256.at("c"), doc["sha256"]["c"].get<std::string>());
  EXPECT_EQ(r.buffers.at("c").size(), 40000u);  // 10,000 floats
  EXPECT_EQ(launch::sha256_hex(r.buffers.at("c")), r.sha256.at("c"));
  EXPECT_TRUE(r.herding.is_null());
}

TEST(TimingChild, AnErrorDocumentIsAnErrorWithItsKind) {
  const ChildResult r =
      read_child_result({{"error", "kernel k, CTA (0,0,0): boom"}, {"error_kind", "kernel"}});
  EXPECT_FALSE(r.ok());
  EXPECT_FALSE(r.passed());
  EXPECT_EQ(r.error_kind, "kernel");
  EXPECT_EQ(r.problem(), "kernel k, CTA (0,0,0): boom");
  const ChildResult failed = read_child_result(
      {{"stats", {{"cycles", 7}}}, {"sha256", nlohmann::json::object()}, {"failures", {"c: mismatch"}}});
  EXPECT_TRUE(failed.ok());
  EXPECT_FALSE(failed.passed());
  EXPECT_EQ(failed.problem(), "c: mismatch");
  EXPECT_EQ(failed.cycles(), 7u);
}

}  // namespace
}  // namespace simtlm::sim
