// The divergence-cost paper's microbenchmarks on the SystemC model (one SM, one warp, token discipline,
// kepler and maxwell presets): the paper's exact stack counts for every Table I pattern, spills and fills as
// real memory transactions, and the cycle cost per divergence and per spill.
#include <cstdlib>

#include "testbenches/timing/timing_fixture.hpp"

using namespace simtlm;
using namespace simtlm::timing_test;

namespace {

uint64_t expected_chunks(uint64_t max_depth) {
  return max_depth > 16 ? (max_depth - 16 + 3) / 4 : 0;
}

stats::Group run_pattern(const std::string& kernel, int n, const std::string& preset) {
  launch::Launch l = launch::load_launch(workload_launch(kernel));
  for (size_t i = 1; i < l.params.size(); ++i) l.params[i].integer = n;  // double_loop: both bounds
  const sim::ChildResult t = run_timing_child(l, machine(preset + "-stack.yaml"));
  EXPECT_TRUE(t.ok()) << kernel << " n=" << n << ": " << t.error;
  EXPECT_TRUE(t.failures.empty()) << failures_text(t);
  return t.stats();
}

// Spills and fills go through the SM's socket: the L1 sees them besides the kernel's own accesses.
void expect_spill_traffic(const stats::Group& s, int n) {
  const stats::Group& st = s.group("stack");
  EXPECT_EQ(st.integer("spill_requests"), st.integer("spills")) << n;
  EXPECT_EQ(st.integer("fill_requests"), st.integer("fills")) << n;
  const stats::Group l1 = s.total("l1");
  EXPECT_EQ(l1.integer("writes") + l1.integer("reads"),
            s.group("memory").integer("global_requests") + st.integer("spills") + st.integer("fills"))
      << n;
}

TEST(TimingStackPaper, SingleLoopCountsAndCycles) {
  for (const std::string preset : {"kepler", "maxwell"}) {
    const int64_t per_divergence = preset == "kepler" ? 32 : 26;
    const int64_t per_spill = preset == "kepler" ? 84 : 176;  // paper sec. IV: one spill and its fill
    int64_t previous = 0;
    for (int n = 0; n < 32; ++n) {
      const stats::Group s = run_pattern("single_loop", n, preset);
      const stats::Group& st = s.group("stack");
      const auto signed_stack = [&](const char* name) { return int64_t(st.integer(name)); };
      const uint64_t d = n + 1;
      EXPECT_EQ(st.integer("pushes"), d) << preset << " n=" << n;
      EXPECT_EQ(st.integer("max_depth"), d) << preset << " n=" << n;
      EXPECT_EQ(st.integer("spills"), expected_chunks(d)) << preset << " n=" << n;
      EXPECT_EQ(st.integer("fills"), expected_chunks(d)) << preset << " n=" << n;
      expect_spill_traffic(s, n);
      // The stack's cycles by event: each pop costs the per-divergence figure, each spill and fill its share.
      EXPECT_EQ(signed_stack("cycles_pop"), per_divergence * int64_t(d)) << preset << " n=" << n;
      EXPECT_EQ(signed_stack("cycles_spill") + signed_stack("cycles_fill"),
                per_spill * int64_t(expected_chunks(d)))
          << preset << " n=" << n;
      EXPECT_EQ(signed_stack("cycles"), signed_stack("cycles_pop") + signed_stack("cycles_spill") +
                                            signed_stack("cycles_fill") +
                                            signed_stack("cycles_divergent_branch"));
      const auto cycles = int64_t(s.integer("cycles"));
      if (n > 0) {
        const bool spill_step = expected_chunks(d) != expected_chunks(d - 1);
        // One more divergent step costs the per-divergence figure exactly; a step that spills adds the
        // paper's spill cost within 2% (the spill's first cycle overlaps the branch).
        if (!spill_step) {
          EXPECT_EQ(cycles - previous, per_divergence) << preset << " n=" << n;
        } else {
          EXPECT_LE(std::abs(cycles - previous - per_divergence - per_spill), per_spill / 50)
              << preset << " n=" << n;
        }
      }
      previous = cycles;
    }
  }
}

TEST(TimingStackPaper, DoubleLoopCounts) {
  for (const std::string preset : {"kepler", "maxwell"}) {
    for (int n = 0; n < 32; ++n) {
      const stats::Group s = run_pattern("double_loop", n, preset);
      const stats::Group& st = s.group("stack");
      EXPECT_EQ(st.integer("pushes"), uint64_t(n * (65 - n) / 2 + 33)) << preset << " n=" << n;
      EXPECT_EQ(st.integer("max_depth"), uint64_t(n + 2)) << preset << " n=" << n;
      EXPECT_EQ(st.integer("pops"), st.integer("pushes")) << preset << " n=" << n;
      const uint64_t k = expected_chunks(n + 2);
      EXPECT_EQ(st.integer("spills"), k * (32 - n) + k * (2 * k + 1)) << preset << " n=" << n;
      expect_spill_traffic(s, n);
    }
  }
}

// Without a preset the warp waits for its fills to come back through the memory hierarchy (from the L2,
// where the write-through L1 left the spilled entries).
TEST(TimingStackPaper, FillsWaitForMemoryWithoutAPreset) {
  launch::Launch l = launch::load_launch(workload_launch("single_loop"));
  l.params[1].integer = 31;
  const sim::ChildResult fast = run_timing_child(l, machine("kepler-stack.yaml", {{"stack.preset", "none"}}));
  const sim::ChildResult slow =
      run_timing_child(l, machine("kepler-stack.yaml", {{"stack.preset", "none"}, {"l2.latency", "1000"}}));
  ASSERT_TRUE(fast.ok()) << fast.error;
  ASSERT_TRUE(slow.ok()) << slow.error;
  const stats::Group f = fast.stats(), s = slow.stats();
  EXPECT_EQ(f.group("stack").integer("fills"), 4u);
  // Each of the four fills waits exactly the 900 cycles the slower L2 adds (default l2.latency is 100).
  EXPECT_EQ(s.element("stalls", "stack").integer() - f.element("stalls", "stack").integer(),
            4u * (1000 - 100));
}

}  // namespace
