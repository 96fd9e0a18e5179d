// The Slurm backend without a cluster: parsers of squeue, scontrol and sacct output, the job script, and
// run_on_slurm against fake sbatch/squeue/scontrol scripts on PATH (errors named with the command and its
// stderr, a timed-out task turned into "slurm" statuses). The real cluster:
// testbenches/sweep/check-sweep-slurm.
#include <gtest/gtest.h>

#include <cstdlib>

#include "sweep/sweep_slurm.hpp"
#include "testbenches/sweep/sweep_fixture.hpp"

namespace simtlm::testing {
namespace {

using sweep::SlurmError;

TEST(SlurmParse, ArrayIndexes) {
  EXPECT_EQ(sweep::parse_array_indexes("0-3,5,7-11:2%4"), (std::vector<uint64_t>{0, 1, 2, 3, 5, 7, 9, 11}));
  EXPECT_EQ(sweep::parse_array_indexes("4"), (std::vector<uint64_t>{4}));
  for (const char* bad : {"", "a", "3-1", "1-4:0", "1-", "-2", "1,,2"})
    EXPECT_THROW(sweep::parse_array_indexes(bad), SlurmError) << bad;
}

TEST(SlurmParse, ScontrolRecordsOfTheArrayOnly) {
  // As Slurm 22.05 prints them (shortened): a finished task, a failed one, the never-started rest as a
  // range, and a record of another job that must be ignored.
  const std::string text =
      "JobId=1 ArrayJobId=1 ArrayTaskId=5 JobName=t JobState=COMPLETED Reason=None ExitCode=0:0 "
      "RunTime=00:00:01\n"
      "JobId=5 ArrayJobId=1 ArrayTaskId=3 JobName=t JobState=FAILED Reason=NonZeroExitCode ExitCode=3:0\n"
      "JobId=7 ArrayJobId=1 ArrayTaskId=6-8 JobName=t JobState=CANCELLED Reason=None ExitCode=0:0\n"
      "JobId=9 ArrayJobId=10 ArrayTaskId=0 JobName=u JobState=TIMEOUT ExitCode=0:15\n";
  const auto tasks = sweep::parse_scontrol_tasks(text, "1");
  ASSERT_EQ(tasks.size(), 5u);
  EXPECT_EQ(tasks.at(5).state, "COMPLETED");
  EXPECT_EQ(tasks.at(3).state, "FAILED");
  EXPECT_EQ(tasks.at(3).exit_code, "3:0");
  for (uint64_t t : {6, 7, 8}) EXPECT_EQ(tasks.at(t).state, "CANCELLED");
  EXPECT_EQ(sweep::parse_scontrol_tasks(text, "10").at(0).state, "TIMEOUT");
  EXPECT_THROW(sweep::parse_scontrol_tasks("JobId=2 ArrayJobId=1 ArrayTaskId=2 ExitCode=0:0\n", "1"),
               SlurmError);
}

TEST(SlurmParse, SacctLines) {
  const auto tasks = sweep::parse_sacct_tasks(
      "12_3|COMPLETED|0:0\n12_[4-6]|CANCELLED by 0|0:0\n12_7|TIMEOUT|0:15\n120_1|FAILED|1:0\n\n", "12");
  ASSERT_EQ(tasks.size(), 5u);
  EXPECT_EQ(tasks.at(3).state, "COMPLETED");
  EXPECT_EQ(tasks.at(5).state, "CANCELLED");
  EXPECT_EQ(tasks.at(7).exit_code, "0:15");
  EXPECT_THROW(sweep::parse_sacct_tasks("12_3 COMPLETED\n", "12"), SlurmError);
}

TEST(SlurmParse, SqueueLines) {
  const auto tasks = sweep::parse_squeue_tasks("0 RUNNING\n2 PENDING\n");
  ASSERT_EQ(tasks.size(), 2u);
  EXPECT_EQ(tasks.at(0), "RUNNING");
  EXPECT_EQ(tasks.at(2), "PENDING");
  EXPECT_THROW(sweep::parse_squeue_tasks("N/A RUNNING\n"), SlurmError);
  EXPECT_THROW(sweep::parse_squeue_tasks("1 RUNNING now\n"), SlurmError);
}

TEST(SlurmScript, QuotesEveryPath) {
  EXPECT_EQ(sweep::shell_quote("/a/b-c_1.x"), "/a/b-c_1.x");
  EXPECT_EQ(sweep::shell_quote("a b"), "'a b'");
  EXPECT_EQ(sweep::shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(sweep::shell_quote(""), "''");
  const std::string script = sweep::array_script("/opt/sim tlm", "/data/it's", "/data/l.txt", 3);
  EXPECT_NE(script.find("\nexec '/opt/sim tlm' sweep-task '/data/it'\\''s' --list /data/l.txt --index "
                        "\"$SLURM_ARRAY_TASK_ID\" --chunk 3\n"),
            std::string::npos)
      << script;
}

// run_on_slurm with fake Slurm commands on PATH.
class SlurmFake : public SweepTest {
 protected:
  void SetUp() override {
    SweepTest::SetUp();
    old_path_ = std::getenv("PATH") ? std::getenv("PATH") : "";
    // Only the fakes: the real Slurm commands of the machine must not be found.
    setenv("PATH", (dir_ / "bin").c_str(), 1);
    fs::create_directories(dir_ / "bin");
  }
  void TearDown() override {
    setenv("PATH", old_path_.c_str(), 1);
    SweepTest::TearDown();
  }
  void fake(const std::string& name, const std::string& body) {
    spit(dir_ / "bin" / name, "#!/bin/sh\n" + body + "\n");
    fs::permissions(dir_ / "bin" / name, fs::perms::owner_all);
  }
  std::vector<sweep::JobSpec> two_jobs() {
    std::vector<sweep::JobSpec> jobs(2);
    jobs[0].id = "0123456789abcdef";
    jobs[1].id = "fedcba9876543210";
    for (sweep::JobSpec& j : jobs) j.argv = {"run", "--launch", "x.yaml"};
    return jobs;
  }
  std::string error_of(const sweep::SlurmOptions& options) {
    sweep::SweepProgress progress(ProgressStyle::off);
    try {
      sweep::run_on_slurm(dir_ / "sweep", two_jobs(), options, progress);
    } catch (const SlurmError& e) {
      return e.what();
    }
    return "(no error)";
  }
  std::string old_path_;
};

TEST_F(SlurmFake, MissingSbatchIsNamed) {
  const std::string e = error_of({});
  EXPECT_NE(e.find("cannot run sbatch"), std::string::npos) << e;
  EXPECT_NE(e.find("not on PATH"), std::string::npos) << e;
}

TEST_F(SlurmFake, FailingSbatchQuotesItsStderr) {
  fake("sbatch", "echo 'sbatch: error: invalid partition specified: nope' >&2; exit 1");
  sweep::SlurmOptions options;
  options.partition = "nope";
  const std::string e = error_of(options);
  EXPECT_NE(e.find("`sbatch --parsable --job-name=simtlm-sweep --array=0-1 "), std::string::npos) << e;
  EXPECT_NE(e.find("--partition=nope"), std::string::npos) << e;
  EXPECT_NE(e.find("failed with exit code 1: sbatch: error: invalid partition specified: nope"),
            std::string::npos)
      << e;
}

TEST_F(SlurmFake, UnparsableSbatchOutput) {
  fake("sbatch", "echo 'Submitted batch job 12'");
  const std::string e = error_of({});
  EXPECT_NE(e.find("printed no job id but 'Submitted batch job 12'"), std::string::npos) << e;
}

TEST_F(SlurmFake, TimedOutTaskLeavesSlurmStatuses) {
  // The array is gone at the first poll; scontrol reports task 0 (both jobs, chunk 2) timed out.
  fake("sbatch", "echo '42;cluster'");
  fake("squeue", "exit 0");
  fake("scontrol",
       "echo 'JobId=43 ArrayJobId=42 ArrayTaskId=0 JobState=TIMEOUT Reason=TimeLimit ExitCode=0:15'");
  sweep::SlurmOptions options;
  options.chunk = 2;
  options.time = "5";
  sweep::SweepProgress progress(ProgressStyle::off);
  const sweep::SweepTally tally = sweep::run_on_slurm(dir_ / "sweep", two_jobs(), options, progress);
  EXPECT_EQ(tally.total, 2u);
  EXPECT_EQ(tally.done, 0u);
  EXPECT_EQ(tally.failed, 2u);
  for (const sweep::JobSpec& job : two_jobs()) {
    const sweep::JobStatus st = sweep::read_status(dir_ / "sweep", job);
    EXPECT_EQ(st.state, sweep::JobState::failed);
    EXPECT_EQ(st.cause, "slurm");
    EXPECT_EQ(st.exit_code, 128 + 15);
    EXPECT_EQ(st.error.rfind("array task 42_0 ended TIMEOUT (exit 0:15); log: ", 0), 0u) << st.error;
    EXPECT_TRUE(sweep::needs_run(st, false));
  }
  EXPECT_EQ(slurp(dir_ / "sweep/slurm/1/jobs.txt"), "0123456789abcdef\nfedcba9876543210\n");
  EXPECT_NE(slurp(dir_ / "sweep/slurm/1/sbatch.txt").find("--array=0-0 "), std::string::npos);
  EXPECT_NE(slurp(dir_ / "sweep/slurm/1/sbatch.txt").find(" --time=5 "), std::string::npos);
  EXPECT_NE(slurp(dir_ / "sweep/slurm/array.json").find("\"job_id\": \"42\""), std::string::npos);
}

TEST_F(SlurmFake, QueuedArrayNeedsResume) {
  fake("sbatch", "echo 42");
  fake("squeue", "exit 0");
  fake("scontrol", "echo 'JobId=42 ArrayJobId=42 ArrayTaskId=0-1 JobState=COMPLETED ExitCode=0:0'");
  sweep::SweepProgress progress(ProgressStyle::off);
  sweep::run_on_slurm(dir_ / "sweep", two_jobs(), {}, progress);
  // Array 42 now shows as running: a second sweep must not submit the same jobs beside it.
  fake("squeue", "echo '0 RUNNING'; echo '1 PENDING'");
  const std::string e = error_of({});
  EXPECT_NE(e.find("Slurm array 42 of a previous sweep"), std::string::npos) << e;
  EXPECT_NE(e.find("--resume waits for it"), std::string::npos) << e;
  EXPECT_FALSE(fs::exists(dir_ / "sweep/slurm/2"));
}

TEST_F(SlurmFake, SweepTaskRefusesAnIndexPastTheList) {
  spit(dir_ / "list.txt", "0123456789abcdef\n");
  EXPECT_EQ(sweep::run_sweep_task(dir_, dir_ / "list.txt", 1, 1), 1);
  EXPECT_EQ(sweep::run_sweep_task(dir_, dir_ / "missing.txt", 0, 1), 1);
}

}  // namespace
}  // namespace simtlm::testing
