// Global atomics in the timing model: each lane is one read-modify-write at the L2 bank's atomic unit, and
// those on one word are serialised at l2.atomic_cycles apart. Values stay the functional model's.
#include "testbenches/timing/timing_fixture.hpp"

using namespace simtlm;
using namespace simtlm::timing_test;

namespace {

constexpr uint64_t kThreads = 64 * 256;  // atomic_count.yaml and atomic_slots.yaml

nlohmann::json run_checked(const std::string& yaml, const config::MachineConfig& m) {
  const launch::Launch l = launch::load_launch(source_path("testbenches/timing/" + yaml));
  nlohmann::json t = run_timing_child(l, m);
  EXPECT_FALSE(t.contains("error")) << t.value("error", "");
  if (t.contains("error")) return {};
  launch::Session session(l, session_options());
  const launch::SessionResult f = session.run();
  for (const auto& [name, bytes] : f.buffers) EXPECT_EQ(t["sha256"][name], launch::sha256_hex(bytes)) << name;
  return t["stats"];
}

TEST(TimingAtomics, OneWordHistogramIsSerialisedAtTheL2) {
  const nlohmann::json s = run_checked("atomic_count.yaml", machine("default.yaml"));
  ASSERT_FALSE(s.is_null());
  // 512 warps, each one request for one word; every lane is one operation at the atomic unit.
  EXPECT_EQ(s["memory"]["atomics"], kThreads / 32);
  EXPECT_EQ(s["l1"]["atomics"], kThreads / 32);
  EXPECT_EQ(s["l2"]["atomics"], kThreads / 32);
  EXPECT_EQ(s["l2"]["atomic_operations"], kThreads);
  // The L1s pass atomics through: no hit or miss there, and nothing cached.
  EXPECT_EQ(s["l1"]["hits"].get<uint64_t>() + s["l1"]["misses"].get<uint64_t>(), 0u);
  // One word, 9 cycles per read-modify-write (l2.atomic_cycles default): the kernel cannot end sooner.
  EXPECT_GE(s["cycles"].get<uint64_t>(), kThreads * 9);
  // All but the first operation waited on the word at least once the unit was saturated.
  EXPECT_GT(s["l2"]["atomic_wait_cycles"].get<uint64_t>(), 0u);
  // The bin's line is dirty at the end and goes to DRAM: one 32-byte sector.
  EXPECT_EQ(s["dram"]["write_bytes"], 32u);
}

TEST(TimingAtomics, CostFollowsTheConfiguredCyclesPerOperation) {
  const nlohmann::json fast =
      run_checked("atomic_count.yaml", machine("default.yaml", {{"l2.atomic_cycles", "1"}}));
  const nlohmann::json slow =
      run_checked("atomic_count.yaml", machine("default.yaml", {{"l2.atomic_cycles", "40"}}));
  ASSERT_FALSE(fast.is_null());
  ASSERT_FALSE(slow.is_null());
  EXPECT_GE(fast["cycles"].get<uint64_t>(), kThreads);
  EXPECT_GE(slow["cycles"].get<uint64_t>(), kThreads * 40);
  // The serial chain dominates: 39 more cycles per operation, less whatever overlapped the chain anyway.
  EXPECT_GE(slow["cycles"].get<uint64_t>() - fast["cycles"].get<uint64_t>(), kThreads * 39 - 10'000);
  EXPECT_EQ(fast["l2"]["atomic_operations"], kThreads);
  EXPECT_EQ(slow["l2"]["atomic_operations"], kThreads);
}

TEST(TimingAtomics, ReturnedOldValuesAreDistinctAsInTheFunctionalRun) {
  // Each thread marks the slot its atomic returned: the marks equal the functional run's (all 1, and the
  // counter 16,384) only if every old value was distinct and in range.
  for (const char* config : {"default.yaml", "fermi-slp.yaml"}) {
    const nlohmann::json s = run_checked("atomic_slots.yaml", machine(config));
    ASSERT_FALSE(s.is_null()) << config;
    EXPECT_EQ(s["l2"]["atomic_operations"], kThreads) << config;
    EXPECT_GE(s["cycles"].get<uint64_t>(), kThreads * 9) << config;
  }
}

}  // namespace
