// The herding paper's machines (configs/gtx480.yaml, configs/quadro-fx5800.yaml) on the timing model: the
// workloads leave exactly the functional run's buffers, and the GT200's compute 1.3 coalescing and cacheless
// memory move exactly the transactions the rule predicts.
#include <map>
#include <optional>
#include <string>

#include "testbenches/timing/timing_fixture.hpp"

using namespace simtlm;
using namespace simtlm::timing_test;

namespace {

constexpr uint64_t kArrayBytes = 40'000;          // stream_add.yaml: 10,000 floats per array
constexpr uint64_t kStreamWarps = 313;            // 312 full warps and one of 16 lanes per array access
constexpr uint64_t kAtomicWarps = 64 * 256 / 32;  // atomic_count.yaml

std::map<std::string, std::string> functional_sha256(const fs::path& file) {
  launch::Session session(launch::load_launch(file), session_options());
  return sha256_of(session.run().buffers);
}

// Runs a launch file on the timing model and checks its buffers against the functional run's; its
// statistics, or none when the run failed.
std::optional<stats::Group> run_checked(const fs::path& file, const config::MachineConfig& m) {
  const sim::ChildResult r = run_timing_child(launch::load_launch(file), m);
  EXPECT_TRUE(r.ok()) << r.error;
  if (!r.ok()) return std::nullopt;
  EXPECT_TRUE(r.failures.empty()) << failures_text(r);
  EXPECT_EQ(r.sha256, functional_sha256(file));
  return r.stats();
}

class TimingMachines : public ::testing::TestWithParam<std::string> {};

TEST_P(TimingMachines, SobelAndMandelbrotOutputsEqualFunctional) {
  for (const char* workload : {"sobel", "mandelbrot"}) {
    SCOPED_TRACE(workload);
    const std::optional<stats::Group> s = run_checked(workload_launch(workload), machine(GetParam()));
    ASSERT_TRUE(s.has_value());
    EXPECT_GT(s->integer("cycles"), 0u);
    EXPECT_GT(s->group("memory").integer("global_requests"), 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(HerdingPaper, TimingMachines, ::testing::Values("gtx480.yaml", "quadro-fx5800.yaml"),
                         [](const auto& info) {
                           std::string name = info.param;
                           name.resize(name.find('.'));
                           std::erase(name, '-');
                           return name;
                         });

TEST(TimingMachinesGt200, StreamingMovesWhole64ByteHalfWarpTransactionsStraightToDram) {
  const std::optional<stats::Group> s =
      run_checked(source_path("testbenches/timing/stream_add.yaml"), machine("quadro-fx5800.yaml"));
  ASSERT_TRUE(s.has_value());
  // Every full warp's 4-byte words are two 64-byte half-warp transactions; the last warp's 16 lanes one.
  const uint64_t per_access = 2 * (kStreamWarps - 1) + 1;
  EXPECT_EQ(s->group("memory").integer("global_requests"), 3 * per_access);
  // No cache anywhere: nothing hits, nothing is even looked up, and every transaction is one DRAM request.
  for (const char* cache : {"l1", "l2"}) {
    const stats::Group c = s->total(cache);
    EXPECT_EQ(c.integer("hits"), 0u) << cache;
    EXPECT_EQ(c.integer("reads") + c.integer("writes"), 0u) << cache;
  }
  const stats::Group dram = s->total("dram");
  EXPECT_EQ(dram.integer("reads"), 2 * per_access);
  EXPECT_EQ(dram.integer("read_bytes"), 2 * kArrayBytes);
  EXPECT_EQ(dram.integer("writes"), per_access);
  EXPECT_EQ(dram.integer("write_bytes"), kArrayBytes);
  // Nothing dirty is left behind to write back.
  EXPECT_EQ(s->group("write_back").integer("requests"), 0u);
}

TEST(TimingMachinesGt200, AtomicsAreOneDramReadPerHalfWarp) {
  const std::optional<stats::Group> s =
      run_checked(source_path("testbenches/timing/atomic_count.yaml"), machine("quadro-fx5800.yaml"));
  ASSERT_TRUE(s.has_value());
  const stats::Group& memory = s->group("memory");
  EXPECT_EQ(memory.integer("atomics"), kAtomicWarps);
  // Every lane adds to one word: per half-warp one 32-byte transaction, read at DRAM (no atomic unit).
  EXPECT_EQ(memory.integer("global_requests"), 2 * kAtomicWarps);
  EXPECT_EQ(s->total("dram").integer("reads"), 2 * kAtomicWarps);
  EXPECT_EQ(s->total("dram").integer("read_bytes"), 2 * kAtomicWarps * 32);
  EXPECT_EQ(s->total("l2").integer("atomic_operations"), 0u);
}

TEST(TimingMachinesGtx480, StreamingFillsWhole128ByteL1LinesFromTheL2) {
  const std::optional<stats::Group> s =
      run_checked(source_path("testbenches/timing/stream_add.yaml"), machine("gtx480.yaml"));
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->group("memory").integer("global_requests"), 3 * kStreamWarps);
  // The L1 is not sectored: a read miss fetches its whole line, so the half-used last line of a and of b
  // moves whole; c's stores write through, and the 768 KB L2 keeps them until the kernel's end.
  const stats::Group dram = s->total("dram");
  EXPECT_EQ(s->total("l1").integer("fills"), 2 * kStreamWarps);
  EXPECT_EQ(dram.integer("reads"), 2 * kStreamWarps);
  EXPECT_EQ(dram.integer("read_bytes"), 2 * (kArrayBytes + 64));
  EXPECT_EQ(s->total("l2").integer("writebacks"), 0u);
  EXPECT_EQ(s->group("write_back").integer("requests"), kStreamWarps);
  EXPECT_EQ(dram.integer("write_bytes"), kArrayBytes);
}

}  // namespace
