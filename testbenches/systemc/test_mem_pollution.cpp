// Cache pollution on the Cache engine (Cache::pollute): polluted lines are never hit nor allocated, and a
// dirty line that pollution takes is written back exactly once, before it is dropped.
#include <gtest/gtest.h>
#include <tlm_utils/simple_target_socket.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "models/mem/pollution.hpp"
#include "testbenches/systemc/mem_chain.hpp"

namespace simtlm::mem::test {
namespace {

constexpr auto R = tlm::TLM_READ_COMMAND;
constexpr auto W = tlm::TLM_WRITE_COMMAND;

// Answers everything after 10 cycles and logs every write that reaches it.
struct LoggingMemory : sc_core::sc_module {
  tlm_utils::simple_target_socket<LoggingMemory> socket{"socket"};
  std::vector<std::pair<uint64_t, unsigned>> writes;  // (address, bytes)
  explicit LoggingMemory(sc_core::sc_module_name n) : sc_module(n) {
    socket.register_b_transport(this, &LoggingMemory::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
    if (p.is_write()) writes.emplace_back(p.get_address(), p.get_data_length());
    delay += sc_core::sc_time(10, sc_core::SC_NS);
    p.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

// tg -> cache under test -> memory.
struct Bench {
  TrafficGen tg{"tg"};
  Cache cache;
  LoggingMemory memory{"memory"};
  explicit Bench(const CacheParams& p) : cache("cache", p) {
    tg.out.bind(cache.in);
    cache.out.bind(memory.socket);
  }
};

CacheParams write_back_l1() {
  CacheParams p = test_l1();  // 8 sets x 4 ways of 128-byte lines, 32-byte sectors: 32 lines
  p.write_policy = WritePolicy::kWriteBackAllocate;
  return p;
}

constexpr uint64_t kSetStride = 1024;  // 8 sets of 128-byte lines

TEST(MemPollution, NeverLosesADirtyLine) {
  Bench b(write_back_l1());
  // Fill all 32 lines: even ones by a store (write-validate: dirty, one sector whose place varies), odd
  // ones by a read (clean).
  std::map<uint64_t, uint64_t> dirty_sector_of;  // line -> address of its dirty sector
  for (uint64_t i = 0; i < 32; ++i) {
    const uint64_t line = i * 128;
    if (i % 2 == 0) {
      dirty_sector_of[line] = line + 32 * (i / 2 % 4);
      b.tg.script.push_back({20 * i, W, dirty_sector_of[line], 32});
    } else {
      b.tg.script.push_back({20 * i, R, line, 32});
    }
  }
  sc_core::sc_start();
  for (uint64_t i = 0; i < 32; ++i) ASSERT_TRUE(b.cache.contains(i * 128)) << i;
  ASSERT_TRUE(b.memory.writes.empty());  // nothing evicted so far

  const uint64_t sent = b.cache.pollute(0.75, 11);
  sc_core::sc_start();
  EXPECT_TRUE(b.cache.idle());
  EXPECT_EQ(b.cache.stats().polluted_lines, 24u);
  std::set<uint64_t> kept, lost_dirty;
  for (uint64_t i = 0; i < 32; ++i) {
    const uint64_t line = i * 128;
    if (b.cache.contains(line)) {
      kept.insert(line);
    } else if (dirty_sector_of.count(line)) {
      lost_dirty.insert(dirty_sector_of[line]);
    }
  }
  EXPECT_EQ(kept.size(), 8u);
  // At least 8 of the 16 dirty lines are among the 24 polluted ones.
  ASSERT_GE(lost_dirty.size(), 8u);
  std::multiset<uint64_t> written;
  for (const auto& [addr, bytes] : b.memory.writes) {
    written.insert(addr);
    EXPECT_EQ(bytes, 32u) << addr;
  }
  // Each dirty polluted line exactly once, at its dirty sector; no clean line, no kept line.
  EXPECT_EQ(written, std::multiset<uint64_t>(lost_dirty.begin(), lost_dirty.end()));
  EXPECT_EQ(sent, lost_dirty.size());
  EXPECT_EQ(b.cache.stats().pollution_writebacks, lost_dirty.size());
  EXPECT_EQ(b.cache.stats().pollution_writeback_bytes, 32 * lost_dirty.size());
  EXPECT_EQ(b.cache.stats().writebacks, 0u);  // not counted as evictions
  for (uint64_t line : kept) EXPECT_EQ(b.cache.dirty(line), dirty_sector_of.count(line) == 1) << line;

  // The kept dirty lines are still there to flush: together, every store reaches memory exactly once.
  b.memory.writes.clear();
  b.cache.write_back_dirty();
  sc_core::sc_start();
  for (const auto& [addr, bytes] : b.memory.writes) written.insert(addr);
  std::multiset<uint64_t> every_store;
  for (const auto& [line, sector] : dirty_sector_of) every_store.insert(sector);
  EXPECT_EQ(written, every_store);
}

TEST(MemPollution, PollutedLinesAreNeverHitInAFilledSet) {
  Bench b(test_l1());
  const uint64_t seed = 5;
  // Reads fill set 0's ways in order (the first invalid way is the victim): line w * 1024 in way w.
  std::vector<uint64_t> survivors, polluted;
  for (uint32_t way : pick_polluted_lines(32, 0.5, seed))
    if (way < 4) polluted.push_back(way * kSetStride);  // set 0 is lines 0..3 of the set-major order
  for (uint64_t w = 0; w < 4; ++w)
    if (std::find(polluted.begin(), polluted.end(), w * kSetStride) == polluted.end())
      survivors.push_back(w * kSetStride);
  ASSERT_FALSE(polluted.empty());  // the seed leaves set 0 partly polluted
  ASSERT_FALSE(survivors.empty());
  for (uint64_t w = 0; w < 4; ++w) b.tg.script.push_back({20 * w, R, w * kSetStride});
  // After pollution, at cycle 500: the survivors first (hits), then the polluted lines (misses that evict
  // survivors, since the polluted ways take nothing).
  uint64_t cycle = 1000;
  for (uint64_t line : survivors) b.tg.script.push_back({cycle += 50, R, line});
  for (uint64_t line : polluted) b.tg.script.push_back({cycle += 50, R, line});
  sc_core::sc_start(sc_core::sc_time(500, sc_core::SC_NS));
  ASSERT_EQ(b.cache.stats().misses, 4u);
  b.cache.pollute(0.5, seed);
  uint32_t polluted_ways = 0;
  for (uint32_t w = 0; w < 4; ++w) polluted_ways += b.cache.line_polluted(0, w);
  EXPECT_EQ(polluted_ways, polluted.size());
  for (uint64_t line : survivors) EXPECT_TRUE(b.cache.contains(line)) << line;
  for (uint64_t line : polluted) EXPECT_FALSE(b.cache.contains(line)) << line;
  sc_core::sc_start();
  EXPECT_EQ(b.cache.stats().hits, survivors.size());
  EXPECT_EQ(b.cache.stats().misses, 4u + polluted.size());
  EXPECT_EQ(b.cache.stats().bypasses, 0u);
  // Set 0 never holds more lines than its usable ways.
  uint32_t held = 0;
  for (uint64_t w = 0; w < 4; ++w) held += b.cache.contains(w * kSetStride);
  EXPECT_EQ(held, survivors.size());
  EXPECT_EQ(b.cache.stats().pollution_writebacks, 0u);  // write-through: nothing dirty
}

TEST(MemPollution, SetsWithEveryWayPollutedPassAccessesThroughUncached) {
  CacheParams p = test_l1();
  p.size_bytes = 1024;  // direct mapped: 8 sets of one way
  p.assoc = 1;
  Bench b(p);
  b.cache.pollute(0.5, 3);
  std::vector<bool> set_polluted(8);
  uint32_t polluted_sets = 0;
  for (uint32_t s = 0; s < 8; ++s) polluted_sets += set_polluted[s] = b.cache.line_polluted(s, 0);
  ASSERT_EQ(polluted_sets, 4u);
  // Each set's line read twice, the second time after the first has been answered.
  for (uint64_t s = 0; s < 8; ++s) {
    b.tg.script.push_back({100 * s, R, s * 128});
    b.tg.script.push_back({100 * s + 50, R, s * 128});
  }
  sc_core::sc_start();
  EXPECT_EQ(b.cache.stats().hits, 4u);      // second reads of clean sets
  EXPECT_EQ(b.cache.stats().misses, 12u);   // every read of a polluted set, first reads of the others
  EXPECT_EQ(b.cache.stats().bypasses, 8u);  // the polluted sets' fills
  EXPECT_EQ(b.cache.stats().down_reads, 12u);
  for (uint32_t s = 0; s < 8; ++s) EXPECT_EQ(b.cache.contains(s * 128), !set_polluted[s]) << s;
}

TEST(MemPollution, SeedAndCacheIndexDecideTheLines) {
  Cache a("a", test_l1()), same("same", test_l1()), other_sm("other_sm", test_l1()),
      other_seed("other_seed", test_l1());
  a.pollute(0.25, pollution_seed_for(1, 0));
  same.pollute(0.25, pollution_seed_for(1, 0));
  other_sm.pollute(0.25, pollution_seed_for(1, 1));
  other_seed.pollute(0.25, pollution_seed_for(2, 0));
  auto pattern = [](const Cache& c) {
    std::vector<bool> v;
    for (uint32_t s = 0; s < c.sets(); ++s)
      for (uint32_t w = 0; w < c.params().assoc; ++w) v.push_back(c.line_polluted(s, w));
    return v;
  };
  auto polluted_count = [&](const Cache& c) {
    const std::vector<bool> v = pattern(c);
    return std::count(v.begin(), v.end(), true);
  };
  EXPECT_EQ(polluted_count(a), 8);  // round(0.25 x 32)
  EXPECT_EQ(pattern(same), pattern(a));
  EXPECT_NE(pattern(other_sm), pattern(a));
  EXPECT_NE(pattern(other_seed), pattern(a));
  // Polluting again replaces the set: only the new lines stay polluted.
  a.pollute(0.5, pollution_seed_for(1, 1));
  EXPECT_EQ(a.stats().polluted_lines, 16u);
  EXPECT_EQ(polluted_count(a), 16);
  a.pollute(0.0, 9);
  EXPECT_EQ(a.stats().polluted_lines, 0u);
  EXPECT_EQ(polluted_count(a), 0);
}

TEST(MemPollution, ZeroPollutionChangesNothing) {
  Bench b(write_back_l1());
  for (uint64_t i = 0; i < 32; ++i) b.tg.script.push_back({20 * i, i % 2 ? R : W, i * 128, 32});
  sc_core::sc_start();
  const nlohmann::json before = b.cache.stats_json();
  EXPECT_EQ(b.cache.pollute(0.0, 11), 0u);
  sc_core::sc_start();
  EXPECT_EQ(b.cache.stats_json(), before);
  EXPECT_TRUE(b.memory.writes.empty());
  for (uint64_t i = 0; i < 32; ++i) {
    EXPECT_TRUE(b.cache.contains(i * 128)) << i;
    EXPECT_EQ(b.cache.dirty(i * 128), i % 2 == 0) << i;
  }
}

}  // namespace
}  // namespace simtlm::mem::test
