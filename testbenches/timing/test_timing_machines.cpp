// The herding paper's machines (configs/gtx480.yaml, configs/quadro-fx5800.yaml) on the timing model: the
// workloads leave exactly the functional run's buffers, and the GT200's compute 1.3 coalescing and cacheless
// memory move exactly the transactions the rule predicts.
#include <string>

#include "testbenches/timing/timing_fixture.hpp"

using namespace simtlm;
using namespace simtlm::timing_test;

namespace {

constexpr uint64_t kArrayBytes = 40'000;          // stream_add.yaml: 10,000 floats per array
constexpr uint64_t kStreamWarps = 313;            // 312 full warps and one of 16 lanes per array access
constexpr uint64_t kAtomicWarps = 64 * 256 / 32;  // atomic_count.yaml

nlohmann::json functional_sha256(const fs::path& file) {
  launch::Session session(launch::load_launch(file), session_options());
  nlohmann::json sha;
  for (const auto& [name, bytes] : session.run().buffers) sha[name] = launch::sha256_hex(bytes);
  return sha;
}

// Runs a launch file on the timing model and checks its buffers against the functional run's.
nlohmann::json run_checked(const fs::path& file, const config::MachineConfig& m) {
  const nlohmann::json r = run_timing_child(launch::load_launch(file), m);
  EXPECT_FALSE(r.contains("error")) << r.value("error", "");
  if (r.contains("error")) return {};
  EXPECT_TRUE(r["failures"].empty()) << r["failures"].dump();
  EXPECT_EQ(r["sha256"], functional_sha256(file));
  return r["stats"];
}

class TimingMachines : public ::testing::TestWithParam<std::string> {};

TEST_P(TimingMachines, SobelAndMandelbrotOutputsEqualFunctional) {
  for (const char* workload : {"sobel", "mandelbrot"}) {
    SCOPED_TRACE(workload);
    const nlohmann::json s = run_checked(workload_launch(workload), machine(GetParam()));
    ASSERT_FALSE(s.is_null());
    EXPECT_GT(s["cycles"].get<uint64_t>(), 0u);
    EXPECT_GT(s["memory"]["global_requests"].get<uint64_t>(), 0u);
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
  const nlohmann::json s =
      run_checked(source_path("testbenches/timing/stream_add.yaml"), machine("quadro-fx5800.yaml"));
  ASSERT_FALSE(s.is_null());
  // Every full warp's 4-byte words are two 64-byte half-warp transactions; the last warp's 16 lanes one.
  const uint64_t per_access = 2 * (kStreamWarps - 1) + 1;
  EXPECT_EQ(s["memory"]["global_requests"], 3 * per_access);
  // No cache anywhere: nothing hits, nothing is even looked up, and every transaction is one DRAM request.
  for (const char* cache : {"l1", "l2"}) {
    EXPECT_EQ(s[cache]["hits"], 0u) << cache;
    EXPECT_EQ(s[cache]["reads"].get<uint64_t>() + s[cache]["writes"].get<uint64_t>(), 0u) << cache;
  }
  EXPECT_EQ(s["dram"]["reads"], 2 * per_access);
  EXPECT_EQ(s["dram"]["read_bytes"], 2 * kArrayBytes);
  EXPECT_EQ(s["dram"]["writes"], per_access);
  EXPECT_EQ(s["dram"]["write_bytes"], kArrayBytes);
  // Nothing dirty is left behind to write back.
  EXPECT_EQ(s["write_back"]["requests"], 0u);
}

TEST(TimingMachinesGt200, AtomicsAreOneDramReadPerHalfWarp) {
  const nlohmann::json s =
      run_checked(source_path("testbenches/timing/atomic_count.yaml"), machine("quadro-fx5800.yaml"));
  ASSERT_FALSE(s.is_null());
  EXPECT_EQ(s["memory"]["atomics"], kAtomicWarps);
  // Every lane adds to one word: per half-warp one 32-byte transaction, read at DRAM (no atomic unit).
  EXPECT_EQ(s["memory"]["global_requests"], 2 * kAtomicWarps);
  EXPECT_EQ(s["dram"]["reads"], 2 * kAtomicWarps);
  EXPECT_EQ(s["dram"]["read_bytes"], 2 * kAtomicWarps * 32);
  EXPECT_EQ(s["l2"]["atomic_operations"], 0u);
}

TEST(TimingMachinesGtx480, StreamingFillsWhole128ByteL1LinesFromTheL2) {
  const nlohmann::json s =
      run_checked(source_path("testbenches/timing/stream_add.yaml"), machine("gtx480.yaml"));
  ASSERT_FALSE(s.is_null());
  EXPECT_EQ(s["memory"]["global_requests"], 3 * kStreamWarps);
  // The L1 is not sectored: a read miss fetches its whole line, so the half-used last line of a and of b
  // moves whole; c's stores write through, and the 768 KB L2 keeps them until the kernel's end.
  EXPECT_EQ(s["l1"]["fills"], 2 * kStreamWarps);
  EXPECT_EQ(s["dram"]["reads"], 2 * kStreamWarps);
  EXPECT_EQ(s["dram"]["read_bytes"], 2 * (kArrayBytes + 64));
  EXPECT_EQ(s["l2"]["writebacks"], 0u);
  EXPECT_EQ(s["write_back"]["requests"], kStreamWarps);
  EXPECT_EQ(s["dram"]["write_bytes"], kArrayBytes);
}

}  // namespace
