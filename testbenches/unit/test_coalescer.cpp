// The baseline coalescer and shared-memory bank conflicts, on access patterns with known answers.
#include <gtest/gtest.h>

#include <array>
#include <ostream>
#include <vector>

#include "hw/coalescer.hpp"

using namespace simtlm::hw;

namespace {

std::array<uint64_t, 32> strided(uint64_t base, uint64_t stride) {
  std::array<uint64_t, 32> a{};
  for (uint32_t l = 0; l < 32; ++l) a[l] = base + l * stride;
  return a;
}

TEST(Coalescer, UnitStrideWordsFillOneSegmentOf128) {
  std::vector<CoalescedRequest> out;
  Coalescer(128).coalesce(strided(0x1000, 4).data(), 4, 0xffffffffu, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].base, 0x1000u);
  EXPECT_EQ(out[0].lanes, 0xffffffffu);
  EXPECT_EQ(out[0].sectors, 0xfu);
}

TEST(Coalescer, SegmentSizeSetsRequestCount) {
  const auto a = strided(0x2000, 4);
  for (auto [segment, requests] : {std::pair{32u, 4u}, {64u, 2u}, {128u, 1u}}) {
    std::vector<CoalescedRequest> out;
    Coalescer(segment).coalesce(a.data(), 4, 0xffffffffu, out);
    EXPECT_EQ(out.size(), requests) << segment;
  }
}

TEST(Coalescer, MisalignedWarpTouchesTwoSegmentsInLaneOrder) {
  std::vector<CoalescedRequest> out;
  Coalescer(128).coalesce(strided(0x1040, 4).data(), 4, 0xffffffffu, out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].base, 0x1000u);
  EXPECT_EQ(out[0].lanes, 0x0000ffffu);
  EXPECT_EQ(out[0].sectors, 0xcu);
  EXPECT_EQ(out[1].base, 0x1080u);
  EXPECT_EQ(out[1].lanes, 0xffff0000u);
  EXPECT_EQ(out[1].sectors, 0x3u);
}

TEST(Coalescer, ScatteredAndInactiveLanes) {
  std::vector<CoalescedRequest> out;
  Coalescer(32).coalesce(strided(0, 256).data(), 8, 0x80000005u, out);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].base, 0u);
  EXPECT_EQ(out[1].base, 512u);
  EXPECT_EQ(out[2].base, 31u * 256);
  EXPECT_EQ(out[2].lanes, 0x80000000u);
  out.clear();
  Coalescer(32).coalesce(strided(0, 256).data(), 8, 0, out);
  EXPECT_TRUE(out.empty());
}

TEST(Coalescer, SameAddressBroadcastIsOneRequest) {
  std::vector<CoalescedRequest> out;
  Coalescer(64).coalesce(strided(0x3004, 0).data(), 4, 0xffffffffu, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].sectors, 0x1u);
}

TEST(Coalescer, VectorAccessAcrossSegments) {
  std::vector<CoalescedRequest> out;
  Coalescer(32).coalesce(strided(0x100, 16).data(), 16, 0x3u, out);  // lanes 0,1: v4.b32 = 32 bytes
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].lanes, 0x3u);
  EXPECT_THROW(Coalescer(48), std::invalid_argument);
}

TEST(Coalescer, SegmentOverShorterLinesIsOneRequestPerLine) {
  // 128-byte segments over 64-byte lines (the SLP paper's GPGPU-Sim configuration): a cache serves one
  // line per request, so the warp's 128 bytes leave as two requests, each with its own lanes and sectors.
  std::vector<CoalescedRequest> out;
  const Coalescer c(128, 64);
  EXPECT_EQ(c.request_bytes(), 64u);
  c.coalesce(strided(0x1000, 4).data(), 4, 0xffffffffu, out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].base, 0x1000u);
  EXPECT_EQ(out[0].bytes, 64u);
  EXPECT_EQ(out[0].lanes, 0x0000ffffu);
  EXPECT_EQ(out[0].sectors, 0x3u);
  EXPECT_EQ(out[1].base, 0x1040u);
  EXPECT_EQ(out[1].lanes, 0xffff0000u);
  EXPECT_EQ(out[1].sectors, 0x3u);
  // Only the lines the lanes touch: lanes 0..7 (32 bytes) are one request.
  out.clear();
  c.coalesce(strided(0x1000, 4).data(), 4, 0xffu, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].sectors, 0x1u);
  // Lines longer than the segment change nothing.
  out.clear();
  Coalescer(64, 128).coalesce(strided(0x2000, 4).data(), 4, 0xffffffffu, out);
  EXPECT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].bytes, 64u);
  EXPECT_THROW(Coalescer(128, 48), std::invalid_argument);
}

TEST(Coalescer, AtomicTargetsCountLanesPerWord) {
  std::array<uint64_t, 32> a{};
  for (uint32_t l = 0; l < 32; ++l) a[l] = 0x100 + 4 * (l % 3);  // three words, lanes round-robin
  std::vector<simtlm::mem::AtomicTarget> t;
  atomic_targets(a.data(), 0xffffffffu, t);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].address, 0x100u);
  EXPECT_EQ(t[0].operations, 11u);  // lanes 0, 3, ..., 30
  EXPECT_EQ(t[1].operations, 11u);
  EXPECT_EQ(t[2].address, 0x108u);
  EXPECT_EQ(t[2].operations, 10u);
  atomic_targets(a.data(), 0x1u, t);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].operations, 1u);
}

TEST(SharedBanks, ConflictDegrees) {
  EXPECT_EQ(shared_bank_conflict_degree(strided(0, 4).data(), 4, 0xffffffffu, 32), 1u);
  EXPECT_EQ(shared_bank_conflict_degree(strided(0, 8).data(), 4, 0xffffffffu, 32), 2u);
  EXPECT_EQ(shared_bank_conflict_degree(strided(0, 128).data(), 4, 0xffffffffu, 32), 32u);
  EXPECT_EQ(shared_bank_conflict_degree(strided(0, 0).data(), 4, 0xffffffffu, 32), 1u);  // broadcast
  EXPECT_EQ(shared_bank_conflict_degree(strided(0, 128).data(), 4, 0x0000000fu, 32), 4u);
  EXPECT_EQ(shared_bank_conflict_degree(strided(0, 8).data(), 8, 0xffffffffu, 32), 2u);  // 64-bit words
  EXPECT_EQ(shared_bank_conflict_degree(strided(0, 4).data(), 4, 0, 32), 0u);
}

// Compute capability 1.2/1.3 (lsu.coalescing: compute13): expected transactions worked out by hand from
// the CUDA C Programming Guide's rule, per half-warp.
struct Transaction {
  uint64_t base;
  uint32_t bytes;
  uint32_t lanes;
  bool operator==(const Transaction&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Transaction& t) {
  return os << "{0x" << std::hex << t.base << std::dec << ", " << t.bytes << " B, lanes 0x" << std::hex
            << t.lanes << std::dec << "}";
}

std::vector<Transaction> compute13(const std::array<uint64_t, 32>& addr, uint32_t bytes_per_lane,
                                   uint32_t active) {
  std::vector<CoalescedRequest> out;
  Coalescer(128, 1024, CoalescingRule::compute13).coalesce(addr.data(), bytes_per_lane, active, out);
  std::vector<Transaction> t;
  for (const CoalescedRequest& r : out) {
    // The whole transaction moves: every sector of it is marked.
    EXPECT_EQ(r.sectors, (1u << (r.bytes / 32)) - 1) << std::hex << r.base;
    t.push_back({r.base, r.bytes, r.lanes});
  }
  return t;
}

using Transactions = std::vector<Transaction>;

TEST(Compute13Coalescing, RuleNamesAndTheDefault) {
  EXPECT_EQ(parse_coalescing_rule("sectors"), CoalescingRule::sectors);
  EXPECT_EQ(parse_coalescing_rule("compute13"), CoalescingRule::compute13);
  EXPECT_FALSE(parse_coalescing_rule("compute12").has_value());
  EXPECT_EQ(Coalescer(128).rule(), CoalescingRule::sectors);
}

TEST(Compute13Coalescing, ConsecutiveWordsAreOne64ByteTransactionPerHalfWarp) {
  EXPECT_EQ(compute13(strided(0x1000, 4), 4, 0x0000ffffu), (Transactions{{0x1000, 64, 0xffff}}));
  EXPECT_EQ(compute13(strided(0x1000, 4), 4, 0xffffffffu),
            (Transactions{{0x1000, 64, 0x0000ffff}, {0x1040, 64, 0xffff0000}}));
  // The sectors rule makes the same warp one 128-byte request.
  std::vector<CoalescedRequest> out;
  Coalescer(128).coalesce(strided(0x1000, 4).data(), 4, 0xffffffffu, out);
  EXPECT_EQ(out.size(), 1u);
}

TEST(Compute13Coalescing, PermutedWordsInOneSegmentAreOneTransaction) {
  std::array<uint64_t, 32> a{};
  for (uint32_t l = 0; l < 16; ++l) a[l] = 0x2000 + 4 * ((l * 7 + 3) % 16);
  EXPECT_EQ(compute13(a, 4, 0xffffu), (Transactions{{0x2000, 64, 0xffff}}));
  a[5] = a[6];  // two lanes on one word: still one transaction
  EXPECT_EQ(compute13(a, 4, 0xffffu), (Transactions{{0x2000, 64, 0xffff}}));
}

TEST(Compute13Coalescing, StrideTwoWordsAreOne128ByteTransaction) {
  EXPECT_EQ(compute13(strided(0x3000, 8), 4, 0xffffu), (Transactions{{0x3000, 128, 0xffff}}));
}

TEST(Compute13Coalescing, ScatteredWordsAreSixteen32ByteTransactionsInLaneOrder) {
  Transactions expected;
  for (uint32_t l = 0; l < 16; ++l) expected.push_back({l * 256ull + 0x40, 32, 1u << l});
  EXPECT_EQ(compute13(strided(0x40, 256), 4, 0xffffu), expected);
  // Lane order, not address order: lane 0's segment comes first.
  std::array<uint64_t, 32> a{};
  a[0] = 0x900;
  a[1] = 0x100;
  EXPECT_EQ(compute13(a, 4, 0x3u), (Transactions{{0x900, 32, 0x1}, {0x100, 32, 0x2}}));
}

TEST(Compute13Coalescing, ByteWordsUse32ByteSegmentsAndHalfWarpsDoNotMerge) {
  EXPECT_EQ(compute13(strided(0x4000, 1), 1, 0xffffu), (Transactions{{0x4000, 32, 0xffff}}));
  // Both half-warps read within one 32-byte segment: each has its own transaction.
  EXPECT_EQ(compute13(strided(0x4000, 1), 1, 0xffffffffu),
            (Transactions{{0x4000, 32, 0x0000ffff}, {0x4000, 32, 0xffff0000}}));
  // Every other byte: 32 bytes of the half-warp, still one segment.
  EXPECT_EQ(compute13(strided(0x4000, 2), 1, 0xffffu), (Transactions{{0x4000, 32, 0xffff}}));
}

TEST(Compute13Coalescing, HalfwordsUse64ByteSegmentsReducedToTheUsedHalf) {
  EXPECT_EQ(compute13(strided(0x5000, 2), 2, 0xffffu), (Transactions{{0x5000, 32, 0xffff}}));
  EXPECT_EQ(compute13(strided(0x5020, 2), 2, 0xffffu), (Transactions{{0x5020, 32, 0xffff}}));
  // 32 bytes from 0x5030 straddle two 64-byte segments: the upper half of one, the lower half of the next.
  EXPECT_EQ(compute13(strided(0x5030, 2), 2, 0xffffu),
            (Transactions{{0x5020, 32, 0x00ff}, {0x5040, 32, 0xff00}}));
  // Stride 4: 64 bytes over the whole segment.
  EXPECT_EQ(compute13(strided(0x5000, 4), 2, 0xffffu), (Transactions{{0x5000, 64, 0xffff}}));
}

TEST(Compute13Coalescing, LowerAndUpperHalvesReduceTheTransaction) {
  EXPECT_EQ(compute13(strided(0x6040, 4), 4, 0xffffu), (Transactions{{0x6040, 64, 0xffff}}));
  EXPECT_EQ(compute13(strided(0x6060, 4), 4, 0x00ffu), (Transactions{{0x6060, 32, 0x00ff}}));
  EXPECT_EQ(compute13(strided(0x6000, 4), 4, 0x00ffu), (Transactions{{0x6000, 32, 0x00ff}}));
  // Words at both ends of the segment keep it whole.
  std::array<uint64_t, 32> a{};
  a[0] = 0x6000;
  a[1] = 0x607c;
  EXPECT_EQ(compute13(a, 4, 0x3u), (Transactions{{0x6000, 128, 0x3}}));
  // One word past the lower half: the reduction stops at 64 bytes (the upper 64 hold both ends).
  a[0] = 0x6044;
  EXPECT_EQ(compute13(a, 4, 0x3u), (Transactions{{0x6040, 64, 0x3}}));
}

TEST(Compute13Coalescing, MisalignedHalfWarpTakesTheWholeSegment) {
  // Words 0x7004..0x7043 lie in one 128-byte segment but in both of its halves.
  EXPECT_EQ(compute13(strided(0x7004, 4), 4, 0xffffu), (Transactions{{0x7000, 128, 0xffff}}));
  // From 0x7044 the half-warp runs into the next segment: lanes 0..14, then lane 15 alone.
  EXPECT_EQ(compute13(strided(0x7044, 4), 4, 0xffffu),
            (Transactions{{0x7040, 64, 0x7fff}, {0x7080, 32, 0x8000}}));
}

TEST(Compute13Coalescing, WideWordsUse128ByteSegments) {
  EXPECT_EQ(compute13(strided(0x8000, 8), 8, 0xffffu), (Transactions{{0x8000, 128, 0xffff}}));
  EXPECT_EQ(compute13(strided(0x9000, 16), 16, 0xffffu),
            (Transactions{{0x9000, 128, 0x00ff}, {0x9080, 128, 0xff00}}));
  // A word crossing its segment (interleaved local addresses) takes every segment it touches.
  std::array<uint64_t, 32> a{};
  a[0] = 0xa07c;
  EXPECT_EQ(compute13(a, 8, 0x1u), (Transactions{{0xa000, 128, 0x1}, {0xa080, 128, 0x1}}));
}

TEST(Compute13Coalescing, InactiveLanesAndTheSecondHalfWarp) {
  EXPECT_TRUE(compute13(strided(0x1000, 4), 4, 0).empty());
  EXPECT_EQ(compute13(strided(0x1000, 4), 4, 0xffff0000u), (Transactions{{0x1040, 64, 0xffff0000}}));
  // Lanes 3 and 20 in the same 32 bytes: one transaction per half-warp.
  EXPECT_EQ(compute13(strided(0x1000, 1), 4, (1u << 3) | (1u << 20)),
            (Transactions{{0x1000, 32, 1u << 3}, {0x1000, 32, 1u << 20}}));
}

}  // namespace
