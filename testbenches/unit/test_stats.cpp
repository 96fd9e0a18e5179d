// The statistics library (common/stats.hpp): merge semantics per kind, JSON number kinds, formulas after a
// merge, rows and totals, reading a document back, and the schema rows.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/stats.hpp"

namespace {

using simtlm::stats::Group;
using simtlm::stats::GroupDecl;
using simtlm::stats::Kind;
using simtlm::stats::Value;

// A cache-like component: counters, a maximum written as a real once merged, a mean weighted by two
// counters, a real counter and a ratio.
const GroupDecl& part_decl() {
  static const GroupDecl decl = [] {
    GroupDecl d("part", "one part");
    d.counter("reads", "requests", "reads")
        .counter("writes", "requests", "writes")
        .maximum("queue_max", "requests", "deepest queue")
        .real_when_merged()
        .maximum("depth", "entries", "deepest stack")
        .real_counter("bandwidth", "bytes/cycle", "bytes per cycle")
        .mean("latency_avg", "cycles", "mean latency", {"reads", "writes"})
        .counter("slots", "lanes", "lane slots")
        .hidden()
        .ratio("utilization", "reads per slot", "reads", "slots")
        .label("name", simtlm::stats::Type::text, "the part's name")
        .vector("stalls", Kind::counter, {"memory", "barrier"}, "cycles", "stalls by reason")
        .vector("bank_max", Kind::maximum, {}, "requests", "per bank");
    return d;
  }();
  return decl;
}

Group part(uint64_t reads, uint64_t writes, uint64_t queue_max, double latency, uint64_t slots) {
  Group g(part_decl());
  g.set("reads", reads);
  g.set("writes", writes);
  g.set("queue_max", queue_max);
  g.set("depth", queue_max + 1);
  g.set("bandwidth", 0.5 * double(reads));
  g.set("latency_avg", latency);
  g.set("slots", slots);
  g.set("name", "p" + std::to_string(reads));
  g.vector("stalls")[0] = reads;
  g.vector("stalls")[1] = writes;
  g.vector("bank_max").emplace_back(queue_max);
  return g;
}

TEST(Stats, LeafJsonKeepsNumberKindsAndHidesHidden) {
  const nlohmann::json j = part(2, 1, 7, 3.5, 4).json();
  EXPECT_EQ(j.dump(),
            R"({"bandwidth":1.0,"bank_max":[7],"depth":8,"latency_avg":3.5,"name":"p2","queue_max":7,)"
            R"("reads":2,"stalls":{"barrier":1,"memory":2},"utilization":0.5,"writes":1})");
  EXPECT_TRUE(j["queue_max"].is_number_integer());
  EXPECT_FALSE(j.contains("slots"));
}

TEST(Stats, MergeFollowsEachKind) {
  Group total = simtlm::stats::merged(part_decl(), {part(2, 2, 7, 2.0, 4), part(5, 1, 3, 5.0, 6)});
  EXPECT_EQ(total.get("reads"), Value(uint64_t{7}));  // counters add
  EXPECT_EQ(total.get("writes"), Value(uint64_t{3}));
  EXPECT_EQ(total.get("depth"), Value(uint64_t{8}));  // an integer maximum stays an integer
  EXPECT_EQ(total.get("queue_max"), Value(7.0));      // declared a real once merged
  EXPECT_EQ(total.get("bandwidth"), Value(3.5));      // a real counter adds as a real
  // Weighted by reads + writes: (2.0 * 4 + 5.0 * 6) / 10.
  EXPECT_EQ(total.get("latency_avg"), Value((2.0 * 4 + 5.0 * 6) / 10));
  EXPECT_EQ(total.get("utilization"), Value(0.7));  // recomputed: 7 reads over 10 slots
  EXPECT_EQ(total.get("name"), Value("p2"));        // a label keeps the first part's
  EXPECT_EQ(total.vector("stalls"), (std::vector<Value>{uint64_t{7}, uint64_t{3}}));
  EXPECT_EQ(total.vector("bank_max"), (std::vector<Value>{uint64_t{7}}));
  EXPECT_EQ(total.element("stalls", "barrier"), Value(uint64_t{3}));
  EXPECT_THROW(total.element("stalls", "branch"), std::out_of_range);
  const nlohmann::json j = total.json();
  EXPECT_TRUE(j["queue_max"].is_number_float());
  EXPECT_TRUE(j["depth"].is_number_integer());
  EXPECT_TRUE(j["reads"].is_number_integer());
  EXPECT_TRUE(j["utilization"].is_number_float());
}

TEST(Stats, MeanWithoutWeightIsZeroAndPairwiseMergeEqualsOneMerge) {
  EXPECT_EQ(simtlm::stats::merged(part_decl(), {part(0, 0, 1, 9.0, 0)}).get("latency_avg"), Value(0.0));
  Group left = part(1, 0, 1, 1.0, 1);
  left.merge(part(3, 0, 1, 2.0, 1));  // a leaf merged into: its own mean counts with its own weight
  Group nested(part_decl());
  nested.merge(left);
  nested.merge(part(4, 0, 1, 4.0, 1));
  EXPECT_EQ(left.get("latency_avg"), Value((1.0 * 1 + 2.0 * 3) / 4));
  EXPECT_EQ(nested.get("latency_avg"), Value((1.0 * 1 + 2.0 * 3 + 4.0 * 4) / 8));
}

TEST(Stats, RowsTablesAndTotals) {
  static const GroupDecl root = [] {
    GroupDecl d("root", "a document");
    d.table("per_branch", simtlm::stats::lasting(part_decl()), "by PC")
        .list("parts", simtlm::stats::lasting(part_decl()), "each part")
        .totals("caches", simtlm::stats::lasting(part_decl()), "per_sm", "caches merged")
        .group(GroupDecl("inner", "nested").counter("n", "", "n"));
    return d;
  }();
  Group a(root), b(root);
  a.row("per_branch", "3").set("reads", 1u);
  b.row("per_branch", "3").set("reads", 2u);
  b.row("per_branch", "10").set("reads", 5u);
  a.list("caches").push_back(part(1, 1, 2, 1.0, 1));
  a.list("caches").push_back(part(3, 1, 9, 2.0, 1));
  a.group("inner").set("n", 4u);
  b.group("inner").set("n", 5u);
  a.merge(b);
  EXPECT_EQ(a.table("per_branch").at("3").get("reads"), Value(uint64_t{3}));
  EXPECT_EQ(a.table("per_branch").at("10").get("reads"), Value(uint64_t{5}));
  EXPECT_EQ(a.group("inner").get("n"), Value(uint64_t{9}));
  const nlohmann::json j = a.json();
  EXPECT_EQ(j["caches"]["reads"], 4);
  EXPECT_EQ(j["caches"]["queue_max"].dump(), "9.0");
  EXPECT_EQ(j["caches"]["per_sm"].size(), 2u);
  EXPECT_EQ(j["caches"]["per_sm"][1]["queue_max"].dump(), "9");
  EXPECT_EQ(j["parts"], nlohmann::json::array());
  EXPECT_EQ(j["per_branch"]["10"]["reads"], 5);
  EXPECT_EQ(a.total("caches").get("latency_avg"), Value((1.0 * 2 + 2.0 * 4) / 6));
}

TEST(Stats, DocumentReadBackIsTheSameDocument) {
  static const GroupDecl root = [] {
    GroupDecl d("root", "a document");
    d.totals("dram", simtlm::stats::lasting(part_decl()), "per_channel", "channels merged")
        .table("per_branch", simtlm::stats::lasting(part_decl()), "by PC");
    return d;
  }();
  Group g(root);
  g.list("dram").push_back(part(3, 4, 2, 1.0 / 3.0, 7));
  g.list("dram").push_back(part(5, 6, 8, 2.0 / 7.0, 9));
  g.row("per_branch", "4") = part(1, 1, 1, 0.1, 3);
  const std::string text = g.json().dump();
  const Group back = Group::from_json(root, nlohmann::json::parse(text));
  EXPECT_EQ(back.json().dump(), text);
  // A formula over a hidden counter keeps the value written, since the counter was not.
  EXPECT_EQ(back.table("per_branch").at("4").get("utilization"), Value(1.0 / 3.0));
}

TEST(Stats, IncrementsSubtractCountersKeepMaximaAndLeaveOutReals) {
  static const GroupDecl root = [] {
    GroupDecl d("root", "a document");
    d.totals("dram", simtlm::stats::lasting(part_decl()), "per_channel", "channels merged");
    return d;
  }();
  Group before(root), now(root);
  before.list("dram").push_back(part(2, 1, 7, 3.5, 4));
  now.list("dram").push_back(part(5, 4, 6, 1.5, 8));
  EXPECT_EQ(simtlm::stats::increments_json(now, &before).dump(),
            R"({"dram":{"bank_max":[6],"depth":7,"name":"p5","per_channel":[{"bank_max":[6],"depth":7,)"
            R"("name":"p5","queue_max":6,"reads":3,"stalls":{"barrier":3,"memory":3},"writes":3}],)"
            R"("reads":3,"stalls":{"barrier":3,"memory":3},"writes":3}})");
  // The first snapshot counts from zero; the merged queue_max is a real, so it is left out there only.
  EXPECT_EQ(simtlm::stats::increments_json(now, nullptr)["dram"]["reads"], 5);
  EXPECT_FALSE(simtlm::stats::increments_json(now, nullptr)["dram"].contains("queue_max"));
}

TEST(Stats, FieldsBindStructMembers) {
  struct Counts {
    uint64_t hits = 0, peak = 0;
  };
  const std::vector<simtlm::stats::Field<Counts>> fields = {
      {"hits", &Counts::hits, Kind::counter, "requests", "hits"},
      {"peak", &Counts::peak, Kind::maximum, "entries", "peak"}};
  GroupDecl decl("counts", "");
  simtlm::stats::declare(decl, fields);
  Group a(decl), b(decl);
  simtlm::stats::fill(a, Counts{3, 4}, fields);
  simtlm::stats::fill(b, Counts{5, 2}, fields);
  a.merge(b);
  EXPECT_EQ(a.json().dump(), R"({"hits":8,"peak":4})");
  EXPECT_EQ(decl.stats[1].kind, Kind::maximum);
}

TEST(Stats, UnknownNamesAndMismatchedMergesThrow) {
  Group g(part_decl());
  EXPECT_THAT([&] { g.set("raeds", 1u); }, testing::ThrowsMessage<std::out_of_range>(testing::HasSubstr(
                                               "statistics group 'part' has no statistic 'raeds'")));
  const GroupDecl other("other", "");
  EXPECT_THROW(g.merge(Group(other)), std::invalid_argument);
}

TEST(Stats, SchemaRowsComeFromTheDeclarations) {
  static const GroupDecl root = [] {
    GroupDecl d("root", "");
    d.counter("cycles", "cycles", "core cycles")
        .ratio("ipc", "instructions per cycle", "cycles", "cycles")
        .totals("l1",
                std::make_shared<GroupDecl>(GroupDecl("cache", "")
                                                .counter("hits", "requests", "hits")
                                                .mean("lat", "cycles", "latency", {"hits"})
                                                .maximum("mshr_max", "lines", "MSHRs")
                                                .real_when_merged()),
                "per_sm", "the L1s merged")
        .vector("stalls", Kind::counter, {"memory", "barrier"}, "cycles", "by reason")
        .group(GroupDecl("stack", "").maximum("max_depth", "entries", "deepest"));
    return d;
  }();
  EXPECT_EQ(simtlm::stats::schema_table(root),
            "| field | type | meaning (merge) |\n"
            "|---|---|---|\n"
            "| `cycles` | integer | core cycles [cycles] (sum) |\n"
            "| `ipc` | number | instructions per cycle (formula) |\n"
            "| `stalls.{memory,barrier}` | integer | by reason [cycles] (sum) |\n"
            "| `stack.max_depth` | integer | deepest [entries] (maximum) |\n"
            "| `l1` | object | the L1s merged |\n"
            "| `l1.hits` | integer | hits [requests] (sum) |\n"
            "| `l1.lat` | number | latency [cycles] (mean weighted by `hits`) |\n"
            "| `l1.mshr_max` | number | MSHRs [lines] (maximum, written as a number once merged) |\n"
            "| `l1.per_sm` | [object] | the same fields for each part, before merging (where a maximum is "
            "written as a number once merged, a part's is an integer) |\n");
}

}  // namespace
