// Timing mode on the front-end fixes: the same outputs as the functional model for kernels that need the
// 32-bit shared wrap and the aligned dynamic window, and occupancy that follows each kernel's own shared
// memory (kernels in testbenches/ptx/, launches next to this file).
#include "testbenches/timing/timing_fixture.hpp"

using namespace simtlm;
using namespace simtlm::timing_test;

namespace {

// Runs the launch in both models and checks that the outputs agree; returns the timing statistics (empty
// when the run ended with an error).
stats::Group run_both(const std::string& launch_file, const config::MachineConfig& m) {
  const launch::Launch l = launch::load_launch(source_path("testbenches/timing/" + launch_file));
  const sim::ChildResult t = run_timing_child(l, m);
  EXPECT_TRUE(t.ok()) << t.error;
  if (!t.ok()) return t.stats();
  launch::Session session(l, session_options());
  const launch::SessionResult f = session.run();
  EXPECT_TRUE(f.failures.empty());
  for (const auto& [name, bytes] : f.buffers) EXPECT_EQ(t.sha256.at(name), launch::sha256_hex(bytes)) << name;
  const stats::Group s = t.stats();
  EXPECT_EQ(s.integer("thread_instructions"), f.stats.thread_instructions);
  return s;
}

TEST(TimingFrontEnd, NeedlemanWunschWithWrappedSharedAddressesMatchesFunctional) {
  const stats::Group s = run_both("shared_wrap_nw.yaml", machine("default.yaml"));
  EXPECT_EQ(s.integer("ctas"), 4u);
  EXPECT_EQ(s.integer("barriers"), 4u * 32u);
}

TEST(TimingFrontEnd, DynamicSharedWindowIncludesItsAlignmentPadding) {
  const stats::Group s = run_both("dynamic_shared_align.yaml", machine("default.yaml"));
  EXPECT_EQ(s.integer("ctas"), 3u);
  // One SM's shared memory holds exactly 2 CTAs of 64 + 384 bytes, not 3 (3 + 384 would fit 3).
  const stats::Group tight =
      run_both("dynamic_shared_align.yaml",
               machine("default.yaml", {{"gpu.sms", "1"}, {"gpu.shared_bytes_per_sm", "1200"}}));
  EXPECT_EQ(tight.integer("max_resident_ctas_per_sm"), 2u);
}

TEST(TimingFrontEnd, OccupancyFollowsEachKernelsOwnSharedMemory) {
  // 48 KiB per SM: rotate_words (16 KiB of the module's 36 KiB) fits three times, not once.
  const config::MachineConfig one_sm =
      machine("default.yaml", {{"gpu.sms", "1"}, {"gpu.shared_bytes_per_sm", "49152"}});
  EXPECT_EQ(run_both("per_kernel_shared_rotate.yaml", one_sm).integer("max_resident_ctas_per_sm"), 3u);
  // 8 KiB per SM: histogram (4 KiB, reached only through its device functions) fits twice.
  const config::MachineConfig eight_kib =
      machine("default.yaml", {{"gpu.sms", "1"}, {"gpu.shared_bytes_per_sm", "8192"}});
  EXPECT_EQ(run_both("per_kernel_shared_histogram.yaml", eight_kib).integer("max_resident_ctas_per_sm"), 2u);
  // With 20 KiB per SM one rotate_words CTA still fits (36 KiB would not fit at all).
  const config::MachineConfig small =
      machine("default.yaml", {{"gpu.sms", "1"}, {"gpu.shared_bytes_per_sm", "20480"}});
  EXPECT_EQ(run_both("per_kernel_shared_rotate.yaml", small).integer("max_resident_ctas_per_sm"), 1u);
}

}  // namespace
