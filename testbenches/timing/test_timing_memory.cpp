// Memory-system fidelity of the timing model on a streaming kernel: requests never larger than a cache line
// (so DRAM moves every byte the kernel reads), and dirty lines written back to DRAM at the kernel's end.
#include <optional>

#include "testbenches/timing/timing_fixture.hpp"

using namespace simtlm;
using namespace simtlm::timing_test;

namespace {

// stream_add.yaml: c = a + b over 10,000 floats. Each array is 40,000 bytes at a 256-byte aligned base:
// 312 full warps of 128 bytes and one warp of 16 lanes (64 bytes) per array access.
constexpr uint64_t kArrayBytes = 40'000;

// The run's statistics, or none (after a failed expectation) when it ended with an error.
std::optional<stats::Group> run_stream(const config::MachineConfig& m) {
  const launch::Launch l = launch::load_launch(source_path("testbenches/timing/stream_add.yaml"));
  const sim::ChildResult t = run_timing_child(l, m);
  EXPECT_TRUE(t.ok()) << t.error;
  if (!t.ok()) return std::nullopt;
  launch::Session session(l, session_options());
  const launch::SessionResult f = session.run();
  EXPECT_EQ(t.sha256.at("c"), launch::sha256_hex(f.buffers.at("c")));
  return t.stats();
}

struct StreamCase {
  const char* config;
  uint64_t line_requests_per_access;  // coalesced requests of one array access over the whole grid
  uint64_t dram_reads, dram_read_bytes, dram_writes, dram_write_bytes;
};

class TimingStreaming : public ::testing::TestWithParam<StreamCase> {};

TEST_P(TimingStreaming, DramMovesExactlyTheBytesTheKernelTouches) {
  const StreamCase& c = GetParam();
  const std::optional<stats::Group> s = run_stream(machine(c.config));
  ASSERT_TRUE(s.has_value());
  // Three accesses (a, b, c); a 128-byte segment over 64-byte lines is two requests.
  EXPECT_EQ(s->group("memory").integer("global_requests"), 3 * c.line_requests_per_access);
  // a and b come from DRAM once each; c is written without a fetch (write-validate in the L2).
  const stats::Group dram = s->total("dram");
  EXPECT_EQ(dram.integer("read_bytes"), c.dram_read_bytes);
  EXPECT_EQ(dram.integer("reads"), c.dram_reads);
  // Every byte of c reaches DRAM: by eviction during the kernel or by the write-back at its end.
  EXPECT_EQ(dram.integer("write_bytes"), c.dram_write_bytes);
  EXPECT_EQ(dram.integer("writes"), c.dram_writes);
  EXPECT_EQ(dram.integer("bytes"), c.dram_read_bytes + c.dram_write_bytes);
}

INSTANTIATE_TEST_SUITE_P(
    Configs, TimingStreaming,
    ::testing::Values(
        // 128-byte lines: 313 lines per array, the last one half used; 32-byte sectors travel.
        StreamCase{"default.yaml", 313, 2 * 313, 2 * kArrayBytes, 313, kArrayBytes},
        // 64-byte lines (SLP paper, Table 2): 625 lines per array, all whole.
        StreamCase{"fermi-slp.yaml", 625, 2 * 625, 2 * kArrayBytes, 625, kArrayBytes},
        // 128-byte L1 sectors (MV5): the half-used last line moves whole, read and written back.
        StreamCase{"mv5-wpu.yaml", 313, 2 * 313, 2 * (kArrayBytes + 64), 313, kArrayBytes + 64}),
    [](const auto& info) {
      std::string name = info.param.config;
      name.resize(name.find('.'));
      std::erase(name, '-');
      return name;
    });

TEST(TimingWriteBack, KernelEndWritesEveryDirtyL2LineApartFromTheKernelCycles) {
  const std::optional<stats::Group> s = run_stream(machine("default.yaml"));
  ASSERT_TRUE(s.has_value());
  const stats::Group& wb = s->group("write_back");
  // The L2 (128 KiB) holds all 120,000 bytes touched, so nothing was evicted: the whole of c is written
  // back at the kernel's end, one request per dirty line, after the kernel's last cycle.
  EXPECT_EQ(s->total("l2").integer("writebacks"), 0u);
  EXPECT_EQ(wb.integer("requests"), 313u);
  EXPECT_EQ(wb.integer("bytes"), kArrayBytes);
  EXPECT_EQ(wb.integer("l1_requests"), 0u);  // write-through L1s hold nothing dirty
  EXPECT_GT(wb.integer("cycles"), 0u);
  EXPECT_EQ(wb.integer("end_cycle"), s->integer("cycles") + wb.integer("cycles"));
}

TEST(TimingWriteBack, WriteBackL1sDrainIntoTheL2First) {
  const std::optional<stats::Group> s = run_stream(machine("mv5-wpu.yaml"));
  ASSERT_TRUE(s.has_value());
  const stats::Group& wb = s->group("write_back");
  // Every line of c the L1s still hold dirty goes to the L2, then every dirty L2 line to DRAM.
  EXPECT_EQ(wb.integer("l1_requests") + s->total("l1").integer("writebacks"), 313u);
  EXPECT_EQ(s->total("l2").integer("writes"), 313u);
  EXPECT_EQ(wb.integer("requests"), 313u);
  EXPECT_EQ(wb.integer("bytes"), kArrayBytes + 64);
}

TEST(TimingMemoryConfig, L1LineLongerThanL2LineIsRefused) {
  const launch::Launch l = launch::load_launch(source_path("testbenches/timing/stream_add.yaml"));
  const sim::ChildResult t =
      run_timing_child(l, machine("default.yaml", {{"l1.line_bytes", "256"}, {"l1.size_bytes", "32768"}}));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error_kind, "config");
  EXPECT_NE(t.error.find("l1.line_bytes (256) must not exceed l2.line_bytes (128)"), std::string::npos)
      << t.error;
}

}  // namespace
