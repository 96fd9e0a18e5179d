// Sweep files: the product, names, exclusions, job ids, and every refusal with its line.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <set>

#include "models/launch/launch.hpp"
#include "sweep/sweep_file.hpp"
#include "sweep/sweep_store.hpp"
#include "testbenches/sweep/sweep_fixture.hpp"

namespace simtlm::testing {
namespace {

using sweep::expand_jobs;
using sweep::load_sweep_file;
using sweep::SweepError;

class SweepFile : public SweepTest {
 protected:
  // The message of the error loading `body` throws (empty when it loads).
  std::string error_of(const std::string& body) {
    try {
      load_sweep_file(sweep_file(body));
    } catch (const SweepError& e) {
      return e.what();
    }
    return "";
  }
};

constexpr const char* kTwoLaunches =
    "launches: [workloads/single_loop/single_loop.yaml, workloads/double_loop/double_loop.yaml]\n";

TEST_F(SweepFile, ProductInOrderWithNamesAndExclusions) {
  const auto spec = load_sweep_file(sweep_file(std::string(kTwoLaunches) +
                                               "configs: [configs/default.yaml]\n"
                                               "mechanisms: [none, tbc+balanced, {name: cap, set: capri}]\n"
                                               "seeds: [1, 7]\n"
                                               "exclude: [{launch: double_loop, mechanism: cap}]\n"));
  const auto jobs = expand_jobs(spec, "v");
  ASSERT_EQ(jobs.size(), 2u * 3u * 2u - 2u);
  EXPECT_EQ(jobs[0].axes["launch"], "single_loop");
  EXPECT_EQ(jobs[0].axes["mechanism"], "none");
  EXPECT_EQ(jobs[0].axes["seed"], "1");
  EXPECT_EQ(jobs[1].axes["seed"], "7");
  EXPECT_EQ(jobs[2].axes["mechanism"], "tbc+balanced");
  EXPECT_EQ(jobs[4].axes["mechanism"], "cap");
  for (const auto& j : jobs) EXPECT_FALSE(j.axes["launch"] == "double_loop" && j.axes["mechanism"] == "cap");
  // The mechanism shorthand is compaction.* parameters; seeds replace the launch file's seed.
  const auto& argv = jobs[3].argv;
  const std::string joined = [&] {
    std::string s;
    for (const auto& a : argv) s += a + " ";
    return s;
  }();
  EXPECT_NE(joined.find("--set divergence.unit=tbc --set compaction.permutation=balanced"),
            std::string::npos);
  EXPECT_NE(joined.find("--launch-set seed=7"), std::string::npos);
  std::set<std::string> ids;
  for (const auto& j : jobs) ids.insert(j.id);
  EXPECT_EQ(ids.size(), jobs.size()) << "every combination has inputs of its own";
}

TEST_F(SweepFile, IdsAreStableAndFollowEveryInput) {
  const std::string body = std::string(kTwoLaunches) + "configs: [configs/default.yaml]\nseeds: [1]\n";
  const auto a = expand_jobs(load_sweep_file(sweep_file(body)), "v1");
  const auto b = expand_jobs(load_sweep_file(sweep_file(body, "again.yaml")), "v1");
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].id, b[0].id);
  EXPECT_EQ(a[1].id, b[1].id);
  EXPECT_EQ(a[0].id.size(), 16u);
  EXPECT_NE(expand_jobs(load_sweep_file(sweep_file(body)), "v2")[0].id, a[0].id) << "the version";
  EXPECT_NE(expand_jobs(load_sweep_file(sweep_file(std::string(kTwoLaunches) +
                                                   "configs: [configs/default.yaml]\nseeds: [2]\n")),
                        "v1")[0]
                .id,
            a[0].id)
      << "the seed";
  EXPECT_NE(
      expand_jobs(load_sweep_file(sweep_file(std::string(kTwoLaunches) +
                                             "configs: [{file: configs/default.yaml, set: [gpu.sms=2]}]\n"
                                             "seeds: [1]\n")),
                  "v1")[0]
          .id,
      a[0].id)
      << "an override";
}

TEST_F(SweepFile, IdsDependOnContentsNotOnWhereFilesLie) {
  const fs::path src = fs::path(SIMTLM_SOURCE_DIR) / "workloads/single_loop";
  const fs::path copy = dir_ / "elsewhere";
  fs::create_directories(copy);
  for (const char* f : {"single_loop.yaml", "single_loop.ptx"}) fs::copy_file(src / f, copy / f);
  const auto here =
      expand_jobs(load_sweep_file(sweep_file("launches: [workloads/single_loop/single_loop.yaml]\n")), "v");
  const auto there = expand_jobs(
      load_sweep_file(sweep_file("launches: [" + (copy / "single_loop.yaml").string() + "]\n")), "v");
  EXPECT_EQ(here[0].id, there[0].id);
  // One byte of the PTX changes the id.
  spit(copy / "single_loop.ptx", slurp(copy / "single_loop.ptx") + "\n");
  const auto changed = expand_jobs(
      load_sweep_file(sweep_file("launches: [" + (copy / "single_loop.yaml").string() + "]\n")), "v");
  EXPECT_NE(changed[0].id, here[0].id);
}

TEST_F(SweepFile, RangeExpandsALaunchWithItsParameters) {
  const auto spec =
      load_sweep_file(sweep_file("launches:\n  - {file: workloads/single_loop/single_loop.yaml, name: "
                                 "\"single n={n}\", range: {n: [3, 5]},\n"
                                 "     set: {params: \"[out, {n}]\"}}\n"));
  const auto jobs = expand_jobs(spec, "v");
  ASSERT_EQ(jobs.size(), 3u);
  EXPECT_EQ(jobs[0].axes["launch"], "single n=3");
  EXPECT_EQ(jobs[2].axes["launch"], "single n=5");
  EXPECT_EQ(jobs[1].argv.back(), "params=[out, 4]");
}

TEST_F(SweepFile, RefusalsNameTheFileAndLine) {
  EXPECT_NE(error_of(std::string(kTwoLaunches) + "mechanisms: [none]\nseed: [1]\n")
                .find("sweep.yaml:4: seed: unknown key"),
            std::string::npos)
      << error_of(std::string(kTwoLaunches) + "mechanisms: [none]\nseed: [1]\n");
  EXPECT_NE(error_of("launches: [workloads/nope/*.yaml]\n")
                .find("sweep.yaml:2: launches[0]: 'workloads/nope/*.yaml' matches no file"),
            std::string::npos);
  EXPECT_NE(error_of("launches:\n  - workloads/missing.yaml\n").find("sweep.yaml:3: launches[0]: "),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kTwoLaunches) + "mechanisms: [tbc+sideways]\n")
                .find("sweep.yaml:3: mechanisms[0]: unknown lane permutation 'sideways'"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kTwoLaunches) + "exclude: [{launch: single_loop}, {launch: double_loop}]\n")
                .find("sweep.yaml:3: exclude: the sweep is empty"),
            std::string::npos);
  EXPECT_NE(error_of(std::string(kTwoLaunches) + "exclude: [{launch: triple_loop}]\n")
                .find("no launch is named 'triple_loop'"),
            std::string::npos);
  EXPECT_NE(
      error_of("launches: [workloads/single_loop/single_loop.yaml, workloads/single_loop/single_loop.yaml]\n")
          .find("two values are named 'single_loop'"),
      std::string::npos);
  EXPECT_NE(error_of(std::string(kTwoLaunches) + "configs: [{file: configs/default.yaml, set: [gpu.sms]}]\n")
                .find("not path=value"),
            std::string::npos);
  EXPECT_NE(error_of("mode: functional\n" + std::string(kTwoLaunches) + "mechanisms: [tbc]\n")
                .find("the functional mode"),
            std::string::npos);
  EXPECT_NE(error_of("launches: []\n").find("sweep.yaml:2: launches: expected a non-empty list"),
            std::string::npos);
  EXPECT_NE(error_of("configs: [configs/default.yaml]\n").find("a sweep needs launches"), std::string::npos);
}

TEST_F(SweepFile, HostileRangesGlobsAndArgumentsAreRefused) {
  const auto edge = load_sweep_file(sweep_file(
      "launches:\n  - {file: workloads/single_loop/single_loop.yaml,\n"
      "     range: {n: [9223372036854775806, 9223372036854775807]}, set: {params: \"[out, {n}]\"}}\n"));
  const auto edge_jobs = expand_jobs(edge, "v");
  ASSERT_EQ(edge_jobs.size(), 2u) << "the last value is INT64_MAX: the loop still ends";
  EXPECT_EQ(edge_jobs[1].argv.back(), "params=[out, 9223372036854775807]");
  EXPECT_NE(error_of("launches:\n  - {file: workloads/single_loop/single_loop.yaml,\n"
                     "     range: {n: [-9223372036854775808, 9223372036854775807]}}\n")
                .find("sweep.yaml:4: launches[0].range.n: expected [first, last]"),
            std::string::npos);
  EXPECT_NE(error_of("launches:\n  - {file: workloads/single_loop/single_loop.yaml,\n"
                     "     range: {a: [0, 99999], b: [0, 99999]}}\n")
                .find("more than 100000 values in all"),
            std::string::npos);
  EXPECT_NE(error_of("launches: [workloads/s*]\n").find("matches no file"), std::string::npos)
      << "directories are not launch files";
  EXPECT_NE(
      error_of(std::string(kTwoLaunches) + "mechanisms: [{name: m, args: [--launch-set, ptx=x.ptx]}]\n")
          .find("sweep.yaml:3: mechanisms[0].args: '--launch-set' is given by the sweep file's own keys"),
      std::string::npos);
  spit(dir_ / "no-ptx.yaml", "ptx: missing.ptx\nkernel: k\ngrid: [1, 1, 1]\nblock: [32, 1, 1]\n");
  EXPECT_NE(
      error_of("launches: [" + (dir_ / "no-ptx.yaml").string() + "]\n").find("sweep.yaml:2: launches[0]: "),
      std::string::npos);
}

TEST_F(SweepFile, AHugeProductIsRefusedFromTheAxesBeforeAnyLaunchIsLoaded) {
  // 100,000 launch values x 11 configurations; the launch file's PTX is missing, so loading even the first
  // value would fail with another error: the product must be refused first, from the axes' sizes alone.
  spit(dir_ / "no-ptx.yaml", "ptx: missing.ptx\nkernel: k\ngrid: [1, 1, 1]\nblock: [32, 1, 1]\n");
  std::string configs = "configs:\n";
  for (int c = 0; c < 11; ++c) configs += fmt::format("  - {{file: configs/default.yaml, name: c{}}}\n", c);
  const std::string body = "launches:\n  - {file: " + (dir_ / "no-ptx.yaml").string() +
                           ", range: {n: [0, 99999]}}\n" + configs + "seeds: [1, 2]\n";
  EXPECT_EQ(error_of(body), (dir_ / "sweep.yaml").string() +
                                ":1: (top level): the sweep has more than 1000000 jobs (launch 100000 x "
                                "config 11 x overrides 1 x mechanism 1 x seed 2)");
  // Within the limit the same launch is loaded, and its error names the launch entry.
  EXPECT_NE(error_of("launches:\n  - {file: " + (dir_ / "no-ptx.yaml").string() + ", range: {n: [0, 2]}}\n")
                .find("sweep.yaml:3: launches[0]: "),
            std::string::npos);
}

TEST_F(SweepFile, ANameThatIsNotUtf8IsWrittenWithReplacementCharacters) {
  // Found by fuzz_sweep (testbenches/fuzz/regressions/fuzz_sweep/non_utf8_value_name): writing the plan threw
  // nlohmann's type_error 316 after the sweep had started.
  const auto spec = load_sweep_file(sweep_file(
      "launches: [{file: workloads/single_loop/single_loop.yaml, name: \"ju\xB1ia\"}]\nstats: [cycles]\n"));
  const fs::path out = dir_ / "out";
  fs::create_directories(out);
  sweep::write_plan(out, expand_jobs(spec, "v"), sweep::sweep_summary(spec));
  EXPECT_NE(slurp(out / "plan.jsonl").find("\"launch\":\"ju\xEF\xBF\xBDia\""), std::string::npos)
      << slurp(out / "plan.jsonl");
  EXPECT_NE(slurp(out / "sweep.json").find("\"ju\xEF\xBF\xBDia\""), std::string::npos);
}

TEST_F(SweepFile, GlobCharactersInTheRootAreText) {
  // A copy of two workloads under a directory whose name is a glob pattern of another directory.
  const fs::path odd = dir_ / "exp[1]", decoy = dir_ / "exp1";
  for (const fs::path& d : {odd, decoy}) fs::create_directories(d);
  for (const char* f : {"single_loop.yaml", "single_loop.ptx"})
    fs::copy_file(fs::path(SIMTLM_SOURCE_DIR) / "workloads/single_loop" / f, odd / f);
  for (const char* f : {"double_loop.yaml", "double_loop.ptx"})
    fs::copy_file(fs::path(SIMTLM_SOURCE_DIR) / "workloads/double_loop" / f, decoy / f);
  spit(odd / "s.yaml", "launches: ['*_loop.yaml']\n");
  const auto spec = load_sweep_file(odd / "s.yaml");
  ASSERT_EQ(spec.axes.at("launch").size(), 1u);
  EXPECT_EQ(spec.axes.at("launch")[0].name, "single_loop");
}

TEST(LaunchSet, ReplacesTopLevelKeysBeforeTheFileIsRead) {
  const fs::path file = fs::path(SIMTLM_SOURCE_DIR) / "workloads/single_loop/single_loop.yaml";
  const launch::Launch plain = launch::load_launch(file);
  const launch::Launch set = launch::load_launch(file, {"seed=9", "params=[out, 3]", "grid=[2, 1, 1]"});
  EXPECT_EQ(plain.seed, 1u);
  EXPECT_EQ(set.seed, 9u);
  EXPECT_EQ(set.grid.x, 2u);
  ASSERT_EQ(set.params.size(), 2u);
  EXPECT_EQ(set.params[1].integer, 3);
  EXPECT_EQ(set.ptx, plain.ptx) << "paths stay relative to the file";
  auto error = [&](const std::string& text) -> std::string {
    try {
      launch::load_launch(file, {text});
    } catch (const launch::LaunchError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(error("seed").find("--launch-set seed: expected KEY=VALUE"), std::string::npos) << error("seed");
  EXPECT_NE(error("params=[out, 3").find("the value is not YAML"), std::string::npos);
  EXPECT_NE(error("colour=red").find("unknown key"), std::string::npos) << error("colour=red");
}

TEST_F(SweepFile, AnInvalidConfigurationIsRefusedWithItsOwnError) {
  spit(dir_ / "bad.yaml", "gpu:\n  sms: -3\n");
  const std::string e =
      error_of(std::string(kTwoLaunches) + "configs: [" + (dir_ / "bad.yaml").string() + "]\n");
  EXPECT_NE(e.find("sweep.yaml:3: configs[0]: "), std::string::npos) << e;
  EXPECT_NE(e.find("bad.yaml"), std::string::npos) << e;
}

}  // namespace
}  // namespace simtlm::testing
