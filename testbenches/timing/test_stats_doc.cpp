// The timing statistics document and its schema: docs/stats-schema.md is generated from the declarations,
// and the document a timing child writes reads back into the typed group unchanged, totals included.
#include <gmock/gmock.h>

#include <fstream>
#include <sstream>

#include "hw/sc/gpu_stats.hpp"
#include "testbenches/timing/timing_fixture.hpp"

using namespace simtlm;
using namespace simtlm::timing_test;

namespace {

TEST(StatsSchema, ReferenceDocIsGenerated) {
  std::ifstream in(source_path("docs/stats-schema.md"));
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), sim::stats_schema_markdown())
      << "docs/stats-schema.md is stale: run scripts/gen-stats-doc";
}

TEST(StatsSchema, RowsSayHowTotalsMerge) {
  std::map<std::string, stats::SchemaRow> rows;
  for (const stats::SchemaRow& r : stats::schema_rows(hw::timing_stats_decl())) rows[r.field] = r;
  EXPECT_EQ(rows.at("`dram.latency_avg_cycles`").meaning,
            "request latency from acceptance to response [cycles] (mean weighted by `reads` + `writes`)");
  EXPECT_EQ(
      rows.at("`l1.mshr_max`").meaning,
      "most MSHRs in use at once (pass-through atomics included) [lines] (maximum, written as a number once "
      "merged)");
  EXPECT_EQ(rows.at("`l1.mshr_max`").type, "number");
  EXPECT_EQ(rows.at("`l1.per_sm`").type, "[object]");
  EXPECT_EQ(rows.at("`stack.max_depth`").meaning, "deepest stack of any warp [entries] (maximum)");
  EXPECT_EQ(rows.at("`compaction.compaction_rate`").type, "number");
  EXPECT_EQ(rows.at("`per_branch.PC.cuda`").type, "string or null");
  EXPECT_EQ(rows.count("`lane_slots`"), 0u);  // hidden: only simd_utilization reads it
}

// Whole-GPU numbers are the declared merges of the parts the document lists.
TEST(StatsSchema, ChildDocumentReadsBackAndTotalsAreMergedParts) {
  const launch::Launch l = launch::load_launch(workload_launch("histogram"));
  const sim::ChildResult t = run_timing_child(l, machine("default.yaml", {{"gpu.sms", "2"}}));
  ASSERT_TRUE(t.ok()) << t.error;
  const nlohmann::json& s = t.stats_json;
  const stats::Group g = hw::timing_stats_from_json(s);
  EXPECT_EQ(g.json(), s);
  EXPECT_EQ(g.json().dump(), s.dump());
  ASSERT_EQ(s["dram"]["per_channel"].size(), g.list("dram").size());
  uint64_t reads = 0;
  for (const nlohmann::json& c : s["dram"]["per_channel"]) reads += c["reads"].get<uint64_t>();
  EXPECT_EQ(s["dram"]["reads"].get<uint64_t>(), reads);
  double weighted = 0, weight = 0;  // the request-weighted mean, in the order the channels are listed
  for (const nlohmann::json& c : s["dram"]["per_channel"]) {
    const double w = c["reads"].get<double>() + c["writes"].get<double>();
    weighted += c["latency_avg_cycles"].get<double>() * w;
    weight += w;
  }
  EXPECT_EQ(s["dram"]["latency_avg_cycles"].get<double>(), weight > 0 ? weighted / weight : 0.0);
  EXPECT_TRUE(s["l1"]["mshr_max"].is_number_float());
  EXPECT_TRUE(s["l1"]["per_sm"][0]["mshr_max"].is_number_integer());
  EXPECT_TRUE(s["max_resident_ctas_per_sm"].is_number_integer());
  EXPECT_EQ(g.integer("warp_instructions"), s["sms"][0]["warp_instructions"].get<uint64_t>() +
                                                s["sms"][1]["warp_instructions"].get<uint64_t>());
  EXPECT_EQ(g.real("ipc"), double(g.integer("warp_instructions")) / double(g.integer("cycles")));
}

}  // namespace
