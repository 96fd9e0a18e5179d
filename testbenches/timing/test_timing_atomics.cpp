// Global atomics in the timing model: each lane is one read-modify-write at the L2 bank's atomic unit, and
// those on one word are serialised at l2.atomic_cycles apart. Values stay the functional model's.
#include <optional>

#include "testbenches/timing/timing_fixture.hpp"

using namespace simtlm;
using namespace simtlm::timing_test;

namespace {

constexpr uint64_t kThreads = 64 * 256;  // atomic_count.yaml and atomic_slots.yaml

// The run's statistics, or none (after a failed expectation) when it ended with an error.
std::optional<stats::Group> run_checked(const std::string& yaml, const config::MachineConfig& m) {
  const launch::Launch l = launch::load_launch(source_path("testbenches/timing/" + yaml));
  const sim::ChildResult t = run_timing_child(l, m);
  EXPECT_TRUE(t.ok()) << t.error;
  if (!t.ok()) return std::nullopt;
  launch::Session session(l, session_options());
  const launch::SessionResult f = session.run();
  for (const auto& [name, bytes] : f.buffers) EXPECT_EQ(t.sha256.at(name), launch::sha256_hex(bytes)) << name;
  return t.stats();
}

TEST(TimingAtomics, OneWordHistogramIsSerialisedAtTheL2) {
  const std::optional<stats::Group> s = run_checked("atomic_count.yaml", machine("default.yaml"));
  ASSERT_TRUE(s.has_value());
  const stats::Group l1 = s->total("l1"), l2 = s->total("l2");
  // 512 warps, each one request for one word; every lane is one operation at the atomic unit.
  EXPECT_EQ(s->group("memory").integer("atomics"), kThreads / 32);
  EXPECT_EQ(l1.integer("atomics"), kThreads / 32);
  EXPECT_EQ(l2.integer("atomics"), kThreads / 32);
  EXPECT_EQ(l2.integer("atomic_operations"), kThreads);
  // The L1s pass atomics through: no hit or miss there, and nothing cached.
  EXPECT_EQ(l1.integer("hits") + l1.integer("misses"), 0u);
  // One word, 9 cycles per read-modify-write (l2.atomic_cycles default): the kernel cannot end sooner.
  EXPECT_GE(s->integer("cycles"), kThreads * 9);
  // All but the first operation waited on the word at least once the unit was saturated.
  EXPECT_GT(l2.integer("atomic_wait_cycles"), 0u);
  // The bin's line is dirty at the end and goes to DRAM: one 32-byte sector.
  EXPECT_EQ(s->total("dram").integer("write_bytes"), 32u);
}

TEST(TimingAtomics, CostFollowsTheConfiguredCyclesPerOperation) {
  const std::optional<stats::Group> fast =
      run_checked("atomic_count.yaml", machine("default.yaml", {{"l2.atomic_cycles", "1"}}));
  const std::optional<stats::Group> slow =
      run_checked("atomic_count.yaml", machine("default.yaml", {{"l2.atomic_cycles", "40"}}));
  ASSERT_TRUE(fast.has_value());
  ASSERT_TRUE(slow.has_value());
  EXPECT_GE(fast->integer("cycles"), kThreads);
  EXPECT_GE(slow->integer("cycles"), kThreads * 40);
  // The serial chain dominates: 39 more cycles per operation, less whatever overlapped the chain anyway.
  EXPECT_GE(slow->integer("cycles") - fast->integer("cycles"), kThreads * 39 - 10'000);
  EXPECT_EQ(fast->total("l2").integer("atomic_operations"), kThreads);
  EXPECT_EQ(slow->total("l2").integer("atomic_operations"), kThreads);
}

TEST(TimingAtomics, ReturnedOldValuesAreDistinctAsInTheFunctionalRun) {
  // Each thread marks the slot its atomic returned: the marks equal the functional run's (all 1, and the
  // counter 16,384) only if every old value was distinct and in range.
  for (const char* config : {"default.yaml", "fermi-slp.yaml"}) {
    const std::optional<stats::Group> s = run_checked("atomic_slots.yaml", machine(config));
    ASSERT_TRUE(s.has_value()) << config;
    EXPECT_EQ(s->total("l2").integer("atomic_operations"), kThreads) << config;
    EXPECT_GE(s->integer("cycles"), kThreads * 9) << config;
  }
}

}  // namespace
