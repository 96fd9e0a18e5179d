// Back-pressure in the timing model: every queue is bounded and a full one stalls its producer, down to the
// warp scheduler (the load/store unit takes no memory instruction while it is full). The watchdog fires only
// when nothing moves, and run.max_cycles stops a runaway kernel with a report of what ran away.
#include <fmt/format.h>

#include "testbenches/timing/timing_fixture.hpp"

using namespace simtlm;
using namespace simtlm::timing_test;

namespace {

void expect_contains(const std::string& text, std::initializer_list<std::string> parts) {
  for (const std::string& part : parts)
    EXPECT_NE(text.find(part), std::string::npos) << "missing '" << part << "' in: " << text;
}

launch::Launch fixture(const std::string& yaml) {
  return timing_launch(yaml);
}

uint64_t stall(const stats::Group& s, const char* kind) {
  return s.element("stalls", kind).integer();
}

// 10^6 one-thread CTAs each add 1 to one counter. Nothing waits for an atomic without a destination, so
// before back-pressure the SMs issued all of them at once and the millionth waited in an unbounded queue
// until the watchdog called it stuck. About 9 s in Release. 9,000,000 cycles of serial read-modify-writes
// at least, past the old default run.max_cycles of 4,000,000: it finishes at the default settings (no limit).
TEST(TimingBackpressure, MillionOneThreadCtasCountExactly) {
  const launch::Launch l = fixture("atomic_million.yaml");
  const sim::ChildResult t = run_timing_child(l, machine("default.yaml"));
  ASSERT_TRUE(t.ok()) << t.error;
  EXPECT_EQ(t.sha256.at("count"), u32_sha256(1'000'000));
  const stats::Group s = t.stats();
  EXPECT_EQ(s.integer("ctas"), 1'000'000u);
  EXPECT_EQ(s.total("l2").integer("atomic_operations"), 1'000'000u);
  EXPECT_GE(s.integer("cycles"), 9'000'000u);  // l2.atomic_cycles 9 per operation on one word
  // Each SM keeps lsu.atomic_queue (32) atomics in flight and no more; the warps wait for room.
  for (const stats::Group& sm : s.list("lsu")) {
    EXPECT_EQ(sm.integer("atomics_max"), 32u);
    EXPECT_GT(sm.integer("atomics_cycles_full"), 8'000'000u);
    EXPECT_EQ(sm.integer("held_max"), 1u);  // one request per atomic instruction waits in the unit
  }
  EXPECT_GT(stall(s, "memory_backpressure"), 0u);
}

// Stores the warps never wait for, with small queues everywhere: no queue ever holds more than its bound,
// the warps stall on back-pressure, and the output is the functional model's.
TEST(TimingBackpressure, StoreFloodStaysWithinEveryQueueBound) {
  const launch::Launch l = fixture("scatter_stores.yaml");
  const config::MachineConfig m =
      machine("default.yaml",
              {{"lsu.store_buffer", "8"}, {"interconnect.queue_depth", "2"}, {"dram.queue_depth", "4"}});
  const sim::ChildResult t = run_timing_child(l, m);
  ASSERT_TRUE(t.ok()) << t.error;
  launch::Session session(l, session_options());
  EXPECT_EQ(t.sha256.at("out"), launch::sha256_hex(session.run().buffers.at("out")));
  const stats::Group s = t.stats();
  EXPECT_EQ(s.group("memory").integer("global_requests"),
            4096u);  // 512 warps x 32 stores, one 128-byte request each
  for (const stats::Group& sm : s.list("lsu")) {
    EXPECT_EQ(sm.integer("stores_max"), 8u);  // reached, never passed
    EXPECT_GT(sm.integer("stores_cycles_full"), 0u);
    EXPECT_EQ(sm.integer("loads_max"), 0u);
  }
  for (const stats::Group& l1 : s.list("l1")) EXPECT_LE(l1.integer("write_buffer_max"), 16u);
  for (const stats::Value& q : s.group("interconnect").vector("bank_queue_max")) EXPECT_LE(q.integer(), 2u);
  for (const stats::Group& d : s.list("dram")) EXPECT_LE(d.integer("queue_max"), 4u);
  EXPECT_GT(s.total("dram").integer("queue_cycles_full"), 0u);
  EXPECT_GT(stall(s, "memory_backpressure"), 0u);
  // Every active cycle is an issue or one stall (the breakdown stays complete with the new kind).
  const stats::Group& sm0 = s.list("sms").at(0);
  EXPECT_EQ(sm0.integer("issue_cycles") + sum(sm0.vector("stalls")), sm0.integer("active_cycles"));
}

// A smaller store buffer can only make the same stores take longer.
TEST(TimingBackpressure, OneEntryStoreBufferSerialisesTheStores) {
  const launch::Launch l = fixture("scatter_stores.yaml");
  const sim::ChildResult one = run_timing_child(l, machine("default.yaml", {{"lsu.store_buffer", "1"}}));
  const sim::ChildResult wide = run_timing_child(l, machine("default.yaml"));
  ASSERT_TRUE(one.ok()) << one.error;
  ASSERT_TRUE(wide.ok()) << wide.error;
  EXPECT_EQ(one.sha256, wide.sha256);
  const stats::Group o = one.stats(), w = wide.stats();
  for (const stats::Group& sm : o.list("lsu")) EXPECT_EQ(sm.integer("stores_max"), 1u);
  // One store at a time: each waits for the previous one's answer from the L1 (l1.hit_latency 20).
  EXPECT_GE(o.integer("cycles"), 2048u * 20);
  EXPECT_GT(o.integer("cycles"), w.integer("cycles"));
  EXPECT_GT(stall(o, "memory_backpressure"), stall(w, "memory_backpressure"));
}

// 20,000 one-thread CTAs add 1 to one counter: 20,000 serial read-modify-writes, 9 cycles each, so requests
// wait thousands of cycles behind a queue that moves every 9. That is progress: a watchdog of 1,000 cycles
// must not fire (before, it called the first atomic, sent at cycle 4, a stuck request).
TEST(TimingBackpressure, WatchdogIgnoresALongButMovingQueue) {
  launch::Launch l = fixture("atomic_million.yaml");
  l.grid.x = 20'000;
  const sim::ChildResult t = run_timing_child(l, machine("default.yaml", {{"run.watchdog_cycles", "1000"}}));
  ASSERT_TRUE(t.ok()) << t.error;
  EXPECT_EQ(t.sha256.at("count"), u32_sha256(20'000));
  EXPECT_GE(t.stats().integer("cycles"), 20'000u * 9);
}

// Runaway kernels bounded by the user (the default is no limit; docs/reliability.md, "Long runs and endless
// runs"): stopped at exactly run.max_cycles with the kernel, its CTAs, a warp and its PC, and the setting to
// raise. A spin on a flag nobody sets is a livelock now, reported before the limit
// (test_timing_livelock.cpp).
void expect_runaway(const std::string& yaml, const std::string& kernel, const std::string& source_line) {
  const uint64_t budget = 400'000;
  const sim::ChildResult t =
      run_timing_child(fixture(yaml), machine("default.yaml", {{"run.max_cycles", std::to_string(budget)}}));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error_kind, "kernel");
  expect_contains(t.error,
                  {fmt::format("run.max_cycles ({}) reached before kernel {} finished", budget, kernel),
                   "still running; e.g. kernel " + kernel + ", CTA (0,0,0), warp 0, SM 0, PC ", source_line,
                   fmt::format("--set run.max_cycles={}", budget * 10),
                   fmt::format("Now cycle {} (the kernel started at cycle 0):", budget)});
}

TEST(TimingRunaway, EndlessStoreLoopStopsAtTheCycleBudget) {
  expect_runaway("store_forever.yaml", "store_forever", "backpressure.cu:16");
}

TEST(TimingRunaway, EndlessAluLoopStopsAtTheCycleBudget) {
  expect_runaway("alu_forever.yaml", "alu_forever", "backpressure.cu:30");
}

}  // namespace
