// `simtlm sweep` on the local backend, through the binary: tables, resumption, failures, interruption, the
// lock and a full disk.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <iterator>
#include <nlohmann/json.hpp>
#include <thread>

#include "sweep/sweep_store.hpp"
#include "testbenches/sweep/sweep_fixture.hpp"

namespace simtlm::testing {
namespace {

using nlohmann::json;

constexpr const char* kSmall =
    "launches: [workloads/single_loop/single_loop.yaml, workloads/double_loop/double_loop.yaml]\n"
    "configs: [configs/default.yaml]\n"
    "mechanisms: [none, tbc]\n"
    "stats: [cycles, warp_instructions]\n";

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

json without_host(json doc) {
  doc.erase("host");
  return doc;
}

class SweepLocal : public SweepTest {
 protected:
  fs::path out() const { return dir_ / "out"; }
  CommandResult sweep(const fs::path& file, const std::string& extra = "") {
    return simtlm("sweep " + file.string() + " --out " + out().string() + " " + extra);
  }
};

TEST_F(SweepLocal, RunsEveryJobAndWritesTheTables) {
  const fs::path file = sweep_file(kSmall);
  const CommandResult r = sweep(file, "--jobs 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("4 jobs (4 distinct), 4 to run"), std::string::npos) << r.output;
  const auto csv = lines_of(slurp(out() / "results.csv"));
  ASSERT_EQ(csv.size(), 5u);
  EXPECT_EQ(csv[0], "job,launch,config,overrides,mechanism,seed,state,cycles,warp_instructions");
  const auto plan = sweep::read_plan(out());
  ASSERT_EQ(plan.size(), 4u);
  for (size_t i = 0; i < plan.size(); ++i) {
    const json stats = json::parse(slurp(out() / "jobs" / plan[i].id / "out" / "stats.json"));
    const std::string expected = plan[i].id + "," + plan[i].axes["launch"].get<std::string>() + ",default,," +
                                 plan[i].axes["mechanism"].get<std::string>() + ",,done," +
                                 stats["cycles"].dump() + "," + stats["warp_instructions"].dump();
    EXPECT_EQ(csv[i + 1], expected);
  }
  const auto jsonl = lines_of(slurp(out() / "results.jsonl"));
  ASSERT_EQ(jsonl.size(), 4u);
  EXPECT_EQ(json::parse(jsonl[3])["job"], plan[3].id);
  EXPECT_EQ(slurp(out() / "failed.csv"),
            "job,launch,config,overrides,mechanism,seed,cause,exit_code,seconds,error\n");

  // A job's stats are those of the same `simtlm run` made by hand.
  const fs::path by_hand = dir_ / "by-hand";
  const CommandResult direct =
      simtlm("run --launch " + std::string(SIMTLM_SOURCE_DIR) +
             "/workloads/double_loop/double_loop.yaml --config " + SIMTLM_SOURCE_DIR +
             "/configs/default.yaml --set divergence.unit=tbc --quiet --out " + by_hand.string());
  ASSERT_EQ(direct.exit_code, 0) << direct.output;
  EXPECT_EQ(without_host(json::parse(slurp(by_hand / "stats.json"))),
            without_host(json::parse(slurp(out() / "jobs" / plan[3].id / "out" / "stats.json"))));
}

TEST_F(SweepLocal, AFinishedJobIsNeverRunAgain) {
  const fs::path file = sweep_file(kSmall);
  ASSERT_EQ(sweep(file).exit_code, 0);
  const auto plan = sweep::read_plan(out());
  const auto before = fs::last_write_time(out() / "jobs" / plan[0].id / "status.json");
  const std::string results = slurp(out() / "results.csv");
  const CommandResult again = sweep(file);
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("4 jobs (4 distinct), 0 to run"), std::string::npos) << again.output;
  EXPECT_EQ(fs::last_write_time(out() / "jobs" / plan[0].id / "status.json"), before);
  EXPECT_EQ(slurp(out() / "results.csv"), results);
}

TEST_F(SweepLocal, PruneRemovesOnlyTheJobsThePlanNoLongerUses) {
  ASSERT_EQ(sweep(sweep_file(kSmall)).exit_code, 0);
  const auto old_plan = sweep::read_plan(out());
  // Another machine size: four new ids; the four old directories stay until --prune.
  const fs::path changed =
      sweep_file(std::string(kSmall) + "overrides: [{name: two-sms, set: [gpu.sms=2]}]\n");
  ASSERT_EQ(sweep(changed).exit_code, 0);
  spit(out() / "jobs" / "notes.txt", "mine");
  for (const auto& job : old_plan) EXPECT_TRUE(fs::exists(out() / "jobs" / job.id));
  const CommandResult r = sweep(changed, "--prune");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("removed 4 job directories"), std::string::npos) << r.output;
  for (const auto& job : old_plan) EXPECT_FALSE(fs::exists(out() / "jobs" / job.id));
  for (const auto& job : sweep::read_plan(out()))
    EXPECT_TRUE(fs::exists(out() / "jobs" / job.id / "status.json"));
  EXPECT_TRUE(fs::exists(out() / "jobs" / "notes.txt"));
}

TEST_F(SweepLocal, AFailedJobIsRecordedAndTheOthersFinish) {
  const fs::path file = sweep_file(
      "launches:\n  - workloads/single_loop/single_loop.yaml\n"
      "  - {file: workloads/double_loop/double_loop.yaml, name: starved, set: {budget: 100}}\n"
      "stats: [cycles]\n");
  const CommandResult r = sweep(file);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("2 jobs: 1 done, 1 failed, 0 not run"), std::string::npos) << r.output;
  const auto failed = lines_of(slurp(out() / "failed.csv"));
  ASSERT_EQ(failed.size(), 2u);
  EXPECT_NE(failed[1].find(",starved,,,,,simulation,1,"), std::string::npos) << failed[1];
  EXPECT_NE(failed[1].find("budget"), std::string::npos) << failed[1];
  const CommandResult status = simtlm("sweep --status " + out().string());
  EXPECT_EQ(status.exit_code, 0);
  EXPECT_NE(status.output.find("2 jobs: 1 done, 1 failed, 0 not run"), std::string::npos) << status.output;
  EXPECT_NE(status.output.find("[launch=starved] (simulation): "), std::string::npos) << status.output;
  EXPECT_NE(sweep(file).output.find("0 to run"), std::string::npos) << "a failure is not retried by itself";
  EXPECT_NE(sweep(file, "--retry-failed").output.find("1 to run"), std::string::npos);
}

TEST_F(SweepLocal, AnInterruptedSweepResumesWhereItStopped) {
  // Six jobs one at a time; the sweep is stopped with SIGTERM once the first has finished.
  const fs::path file = sweep_file(
      "launches: [workloads/mandelbrot/mandelbrot.yaml]\nconfigs: [configs/default.yaml]\n"
      "seeds: [1, 2, 3, 4, 5, 6]\nstats: [cycles]\n");
  const std::string command = std::string(SIMTLM_BINARY) + " sweep " + file.string() + " --out " +
                              out().string() + " --jobs 1 --quiet > " + (dir_ / "log").string() +
                              " 2>&1 & echo $!";
  const CommandResult started = run_shell(command);
  const pid_t pid = std::stoi(started.output);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  auto finished = [&] {
    if (!fs::exists(out() / "plan.jsonl")) return size_t(0);
    size_t n = 0;
    for (const auto& job : sweep::read_plan(out())) n += fs::exists(out() / "jobs" / job.id / "status.json");
    return n;
  };
  while (finished() < 1 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(kill(pid, SIGTERM), 0);
  while (kill(pid, 0) == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const size_t done_when_stopped = finished();
  EXPECT_GE(done_when_stopped, 1u);
  EXPECT_LT(done_when_stopped, 6u) << "the stop came too late to test anything";
  // "[/]tmp/..." matches the children's command lines but not the shell that runs pgrep.
  const std::string path = out().string();
  std::ostringstream pattern_text;
  pattern_text << '[' << path.front() << ']' << (path.c_str() + 1) << "/jobs";
  const std::string pattern = pattern_text.str();
  EXPECT_EQ(run_shell("pgrep -f '" + pattern + "'").output, "") << "no child outlives the sweep";
  for (const auto& job : sweep::read_plan(out()))
    EXPECT_FALSE(fs::exists(out() / "jobs" / job.id / "out.partial"));
  const CommandResult resumed = sweep(file);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find(", " + std::to_string(6 - done_when_stopped) + " to run"), std::string::npos)
      << resumed.output;
  EXPECT_EQ(lines_of(slurp(out() / "results.csv")).size(), 7u);
}

TEST_F(SweepLocal, ASecondSweepIntoTheSameDirectoryIsRefused) {
  const fs::path file = sweep_file(kSmall);
  const sweep::SweepLock held(out());
  const CommandResult r = sweep(file);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("is in use by another sweep (pid " + std::to_string(getpid()) + " on host "),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(out() / "plan.jsonl"));
}

TEST_F(SweepLocal, AnOrdinaryNonEmptyFolderIsRefusedAndLeftAsItWas) {
  const fs::path file = sweep_file(kSmall);
  spit(out() / "results.csv", "the user's own table\n");
  spit(out() / "notes" / "a.txt", "kept\n");
  const CommandResult r = sweep(file);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(r.output, "simtlm: error: " + out().string() +
                          " is a non-empty folder that is not a sweep directory (it holds notes and no "
                          "sweep.lock); give a new or empty folder, or the directory of an earlier sweep, to "
                          "--out\n");
  EXPECT_EQ(slurp(out() / "results.csv"), "the user's own table\n");
  EXPECT_EQ(slurp(out() / "notes" / "a.txt"), "kept\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(out()), fs::directory_iterator()), 2)
      << "no plan.jsonl, jobs/ or sweep.lock added";
  // A file where the folder should be is named as such; an empty folder is a new sweep directory.
  spit(dir_ / "file-out", "x");
  const CommandResult f = simtlm("sweep " + file.string() + " --out " + (dir_ / "file-out").string());
  EXPECT_EQ(f.exit_code, 1);
  EXPECT_EQ(f.output,
            "simtlm: error: sweep directory " + (dir_ / "file-out").string() + " is not a folder\n");
  fs::create_directories(dir_ / "empty");
  const CommandResult e = simtlm("sweep " + file.string() + " --quiet --out " + (dir_ / "empty").string());
  EXPECT_EQ(e.exit_code, 0) << e.output;
  EXPECT_TRUE(fs::exists(dir_ / "empty" / "sweep.lock"));
}

TEST_F(SweepLocal, AFullDiskLeavesEveryFinishedJobIntact) {
  const fs::path file = sweep_file(kSmall);
  ASSERT_EQ(sweep(file).exit_code, 0);
  const std::string results = slurp(out() / "results.csv");
  // Files may grow to 4 KiB: the plan fits, the tables (every job's whole stats) do not.
  ASSERT_LT(fs::file_size(out() / "plan.jsonl"), 4096u);
  ASSERT_GT(fs::file_size(out() / "results.jsonl"), 4096u);
  const std::string jsonl = slurp(out() / "results.jsonl");
  const CommandResult r = run_shell("bash -c \"ulimit -f 4; exec " + std::string(SIMTLM_BINARY) + " sweep " +
                                    file.string() + " --out " + out().string() + "\"");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("cannot write " + out().string()), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("File too large"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("results.jsonl: write: File too large"), std::string::npos) << r.output;
  EXPECT_EQ(slurp(out() / "results.csv"), results);
  EXPECT_EQ(slurp(out() / "results.jsonl"), jsonl);
  for (const auto& entry : fs::directory_iterator(out()))
    EXPECT_EQ(entry.path().string().find(".tmp."), std::string::npos)
        << "a temporary file left: " << entry.path();
  const CommandResult status = simtlm("sweep --status " + out().string());
  EXPECT_NE(status.output.find("4 jobs: 4 done, 0 failed, 0 not run"), std::string::npos) << status.output;
}

}  // namespace
}  // namespace simtlm::testing
