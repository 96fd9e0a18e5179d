// Host steps of a launch sequence (set: writes and loop iterations) count toward the thread-instruction
// budget and are bounded by kMaxHostSteps: a host loop without kernels ends
// (testbenches/launch/seq_host_loop.yaml).
#include <gtest/gtest.h>

#include <string>

#include "models/launch/launch.hpp"
#include "models/launch/sequence.hpp"
#include "testbenches/unit/launch_fixture.hpp"

namespace simtlm::launch::host_steps_test {  // named: unit tests build as unity sources

std::filesystem::path loop_file() {
  return test::fixture("seq_host_loop.yaml");
}

// The error of running `l`, or "" when it runs to the end.
std::string host_error_of(const Launch& l) {
  SequenceSession session(l, {});
  try {
    session.run();
  } catch (const LaunchError& e) {
    return e.what();
  }
  return "";
}

// The kernel's thread instructions alone (the loop skipped).
uint64_t loop_kernel_instructions() {
  Launch l = load_launch(loop_file());
  l.steps[1].count = 0;
  l.instruction_budget = 0;
  SequenceSession session(l, {});
  return session.run().stats.thread_instructions;
}

TEST(LaunchHostSteps, ALoopOfHostWritesStopsAtTheBudget) {
  const uint64_t k = loop_kernel_instructions();
  ASSERT_GT(k, 0u);
  Launch l = load_launch(loop_file());
  l.instruction_budget = k + 1000;
  l.steps[1].count = 1'000'000;  // finite, so that without the bound the test fails instead of hanging
  // Steps per iteration: set (line 16), set (line 17), the iteration's end (repeat, line 14). The 1001st host
  // step is the second set of iteration 333 (1001 = 3 * 333 + 2).
  EXPECT_EQ(host_error_of(l),
            loop_file().string() + ":17: set: the thread-instruction budget of " + std::to_string(k + 1000) +
                " is used up by 1001 host steps (set: writes and loop iterations, one each) and " +
                std::to_string(k) + " kernel thread instructions; raise budget: or --budget");
  // 333 iterations take 999 host steps: they fit a budget of 999 beyond the kernel's, not one of 998, where
  // the last iteration's end (the repeat's line) is the step too many.
  l.steps[1].count = 333;
  l.instruction_budget = k + 999;
  EXPECT_EQ(host_error_of(l), "");
  l.instruction_budget = k + 998;
  EXPECT_EQ(host_error_of(l),
            loop_file().string() + ":14: repeat: the thread-instruction budget of " +
                std::to_string(k + 998) +
                " is used up by 999 host steps (set: writes and loop iterations, one each) and " +
                std::to_string(k) + " kernel thread instructions; raise budget: or --budget");
}

TEST(LaunchHostSteps, TheHostStepsLeaveLessBudgetToTheKernels) {
  const uint64_t k = loop_kernel_instructions();
  Launch l = load_launch(loop_file());
  // The loop first (3 iterations, 9 host steps), then the kernel with a budget one short of what it needs.
  std::swap(l.steps[0], l.steps[1]);
  l.steps[0].count = 3;
  l.instruction_budget = k + 8;
  SequenceSession session(l, {});
  try {
    session.run();
    FAIL() << "no error";
  } catch (const ptx::KernelError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(
                  "launch 0 (kernel _Z8add_stepPfiii at line 10, i = 0): instruction budget "
                  "of " +
                      std::to_string(k - 1) + " thread instructions exceeded",
                  0),
              0u)
        << e.what();
  }
  l.instruction_budget = k + 9;
  EXPECT_EQ(host_error_of(l), "");
}

TEST(LaunchHostSteps, WithoutABudgetTheHostStepLimitEndsTheLoop) {
  Launch l = load_launch(loop_file());
  l.instruction_budget = 0;      // the default, 2 * 10^10
  l.steps[1].count = 4'000'000;  // 12,000,000 host steps; finite, so that without the bound the test fails
  // kMaxHostSteps + 1 = 3 * 3,333,333 + 2: the step past the limit is the second set of iteration 3,333,333.
  static_assert(kMaxHostSteps == 10'000'000);
  EXPECT_EQ(host_error_of(l),
            loop_file().string() +
                ":17: set: the sequence took more than 10000000 host steps (set: writes and loop "
                "iterations), simtlm's limit per run (docs/reliability.md)");
}

}  // namespace simtlm::launch::host_steps_test
