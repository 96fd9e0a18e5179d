// The baseline coalescer and shared-memory bank conflicts, on access patterns with known answers.
#include <gtest/gtest.h>

#include <array>
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

}  // namespace
