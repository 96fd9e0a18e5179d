// priority_encoder_compactor.v against hw::PriorityEncoderCompactor, cycle by cycle, on random CTAs.
#include <gtest/gtest.h>

#include <vector>

#include "Vpriority_encoder_compactor_w16.h"
#include "Vpriority_encoder_compactor_w32.h"
#include "Vpriority_encoder_compactor_w64.h"
#include "Vpriority_encoder_compactor_w8.h"
#include "hw/units/select/rtl_twins.hpp"
#include "testbenches/rtl/vectors.hpp"

namespace simtlm::rtl_test {
namespace {

using hw::rtl::RtlCompactor;

template <typename V>
using Rtl = RtlCompactor<V>;

// Drains both from the same CTA, comparing every emitted warp and done(); stalls (idle cycles) at random.
// Returns the number of compacted warps compared.
template <typename V>
uint64_t drain_both(hw::PriorityEncoderCompactor& model, Rtl<V>& rtl, const std::vector<uint64_t>& cta,
                    VectorSource& source) {
  model.load(cta);
  rtl.load(cta);
  uint64_t steps = 0;
  while (!model.done()) {
    EXPECT_FALSE(rtl.done()) << "RTL finished early after " << steps << " warps";
    if (source.below(8) == 0) {
      const hw::CompactedWarp before = rtl.peek();
      rtl.idle_cycle();
      EXPECT_EQ(before, rtl.peek()) << "state changed without pop";
    }
    const hw::CompactedWarp expected = model.next();
    const hw::CompactedWarp got = rtl.next();
    EXPECT_EQ(expected, got) << "compacted warp " << steps << " of a CTA of " << cta.size() << " warps";
    if (::testing::Test::HasFailure()) {
      for (size_t w = 0; w < cta.size(); ++w)
        ADD_FAILURE() << "CTA warp " << w << " mask 0x" << std::hex << cta[w];
      return steps;
    }
    ++steps;
  }
  EXPECT_TRUE(rtl.done()) << "RTL still valid after " << steps << " warps";
  return steps;
}

template <typename V>
void random_ctas(uint32_t width, uint64_t ctas) {
  hw::PriorityEncoderCompactor model(width, Rtl<V>::kMaxWarps);
  Rtl<V> rtl(width);
  VectorSource source(width);
  uint64_t warps_compared = 0;
  for (uint64_t i = 0; i < ctas; ++i) {
    std::vector<uint64_t> cta(1 + source.below(Rtl<V>::kMaxWarps));
    for (uint64_t& mask : cta) mask = source.mask(width);
    warps_compared += drain_both(model, rtl, cta, source);
    if (::testing::Test::HasFailure()) return;
  }
  // Full CTA: 16 steps each emitting one whole warp; fully aligned (paper Figure 2): one thread per step.
  const std::vector<uint64_t> full(Rtl<V>::kMaxWarps, hw::lane_mask_of(width));
  EXPECT_EQ(drain_both(model, rtl, full, source), Rtl<V>::kMaxWarps);
  const std::vector<uint64_t> aligned = {1, 1, 1};
  EXPECT_EQ(drain_both(model, rtl, aligned, source), 3u);
  EXPECT_EQ(drain_both(model, rtl, std::vector<uint64_t>{}, source), 0u);
  EXPECT_GT(warps_compared, ctas);  // the stimulus produced multi-step compactions
}

TEST(RtlCompactor, W8RandomCtas) {
  random_ctas<Vpriority_encoder_compactor_w8>(8, 40000);
}
TEST(RtlCompactor, W16RandomCtas) {
  random_ctas<Vpriority_encoder_compactor_w16>(16, 30000);
}
TEST(RtlCompactor, W32RandomCtas) {
  random_ctas<Vpriority_encoder_compactor_w32>(32, 20000);
}
TEST(RtlCompactor, W64RandomCtas) {
  random_ctas<Vpriority_encoder_compactor_w64>(64, 10000);
}

// A load in the middle of a compaction replaces the pending set.
TEST(RtlCompactor, W8ReloadMidway) {
  hw::PriorityEncoderCompactor model(8, 16);
  Rtl<Vpriority_encoder_compactor_w8> rtl(8);
  const std::vector<uint64_t> first = {0xff, 0xff, 0xff};
  model.load(first);
  rtl.load(first);
  EXPECT_EQ(model.next(), rtl.next());
  const std::vector<uint64_t> second = {0x01, 0x03};
  VectorSource source(1);
  EXPECT_EQ(drain_both(model, rtl, second, source), 2u);
}

}  // namespace
}  // namespace simtlm::rtl_test
