// Compaction of CTA-wide paths (hw/compaction.hpp) on the examples of the SLP paper: Figure 2, Figure 5 (W =
// 4) and Figure 9 (b), (c) (W = 8), under TBC without permutation, Odd_Even, Rev_WID and Balanced; plus the
// model checked against a direct per-lane oracle on random paths.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>
#include <vector>

#include "hw/compaction.hpp"
#include "hw/units/permutations.hpp"
#include "models/launch/buffers.hpp"

using namespace simtlm::hw;

namespace {

// The paper writes thread ids as one character: 0-9, then A-V for 10-31 (Figure 9 uses G = 16 ... U = 30).
std::string render(const FormedWarp& warp) {
  static const char kDigits[] = "0123456789ABCDEFGHIJKLMNOPQRSTUV";
  std::string out;
  for (int32_t thread : warp.lane) out += thread == kIdleLane ? '-' : kDigits[thread];
  return out;
}

std::vector<std::string> render(const std::vector<FormedWarp>& warps) {
  std::vector<std::string> rows;
  for (const FormedWarp& warp : warps) rows.push_back(render(warp));
  return rows;
}

using Rows = std::vector<std::string>;

PathCompaction compact(const std::vector<uint64_t>& masks, NamedPermutation p, uint32_t width) {
  return compact_path(masks, LanePermutationMap(p, width));
}

Rows placed(const std::vector<uint64_t>& masks, NamedPermutation p, uint32_t width) {
  const LanePermutationMap map(p, width);
  return render(place_path(masks, width, [&map](uint32_t w, uint32_t l) { return map.home_lane(w, l); }));
}

// Figure 1/2: CTA of 3 warps of 4 threads; on path C only threads 0, 4 and 8 are active, all in lane 0.
TEST(CompactionFigure2, AlignedThreadsCannotCompact) {
  const PathCompaction c = compact({0b0001, 0b0001, 0b0001}, NamedPermutation::kIdentity, 4);
  EXPECT_EQ(render(c.warps), (Rows{"0---", "4---", "8---"}));
  EXPECT_EQ(c.no_tbc_warps, 3u);
  EXPECT_EQ(c.ideal_warps, 1u);
  EXPECT_FALSE(c.compacted());
  EXPECT_TRUE(c.potentially_compactable());
}

struct Figure5Case {
  const char* name;
  std::vector<uint64_t> masks;  // Per warp, bit l = logical lane l on the path (W = 4).
  uint32_t ideal, no_tbc, tbc;  // As printed in Figure 5.
  Rows tbc_warps;               // The warps the compactor forms without permutation.
  uint32_t odd_even, rev_wid, balanced;
};

// NW_ideal, NW_NoTBC and NW_TBC are the paper's; the warps formed and the counts under the permutations
// follow from the definitions (docs/slp.md) and were worked out by hand.
const std::vector<Figure5Case> kFigure5 = {
    {"a1", {0b0001, 0b0001, 0b0001, 0b0001}, 1, 4, 4, {"0---", "4---", "8---", "C---"}, 2, 1, 1},
    {"a2", {0b0011, 0b0011, 0b0011, 0b0011}, 2, 4, 4, {"01--", "45--", "89--", "CD--"}, 4, 2, 2},
    {"a3", {0b0101, 0b0101, 0b0101, 0b0101}, 2, 4, 4, {"0-2-", "4-6-", "8-A-", "C-E-"}, 2, 2, 2},
    {"a4", {0b1111, 0b0111, 0b0011, 0b0001}, 3, 4, 4, {"0123", "456-", "89--", "C---"}, 4, 3, 3},
    {"b1", {0b1111, 0b1111, 0, 0}, 2, 2, 2, {"0123", "4567"}, 2, 2, 2},
    {"b2", {0b0111, 0b0111, 0, 0}, 2, 2, 2, {"012-", "456-"}, 2, 2, 2},
    {"b3", {0b0011, 0, 0, 0}, 1, 1, 1, {"01--"}, 1, 1, 1},
    {"b4", {0b1111, 0b1111, 0b1111, 0b0011}, 4, 4, 4, {"0123", "4567", "89AB", "CD--"}, 4, 4, 4},
    {"c1", {0b0011, 0b1100, 0b0011, 0b1100}, 2, 4, 2, {"0167", "89EF"}, 2, 4, 4},
    {"c2", {0b1111, 0b0011, 0b1100, 0b1111}, 3, 4, 3, {"0123", "45AB", "CDEF"}, 3, 4, 4},
    {"c3", {0b0011, 0b0011, 0b1100, 0b1100}, 2, 4, 2, {"01AB", "45EF"}, 2, 2, 2},
    {"c4", {0b0101, 0b0101, 0b1010, 0b1010}, 2, 4, 2, {"092B", "4D6F"}, 2, 4, 2},
};

TEST(CompactionFigure5, WarpCountsAndWarpsWithoutPermutation) {
  for (const Figure5Case& f : kFigure5) {
    const PathCompaction c = compact(f.masks, NamedPermutation::kIdentity, 4);
    EXPECT_EQ(c.ideal_warps, f.ideal) << f.name;
    EXPECT_EQ(c.no_tbc_warps, f.no_tbc) << f.name;
    EXPECT_EQ(c.tbc_warps(), f.tbc) << f.name;
    EXPECT_EQ(render(c.warps), f.tbc_warps) << f.name;
  }
}

TEST(CompactionFigure5, WarpCountsUnderPermutations) {
  for (const Figure5Case& f : kFigure5) {
    EXPECT_EQ(compact(f.masks, NamedPermutation::kOddEven, 4).tbc_warps(), f.odd_even) << f.name;
    EXPECT_EQ(compact(f.masks, NamedPermutation::kRevWid, 4).tbc_warps(), f.rev_wid) << f.name;
    EXPECT_EQ(compact(f.masks, NamedPermutation::kBalanced, 4).tbc_warps(), f.balanced) << f.name;
  }
}

TEST(CompactionFigure5, BalancedCompactsFullyAlignedLaneZero) {
  // a1 under Balanced: W1, W2, W3 move logical lane 0 to lanes 3, 1, 2, so all four threads share one warp.
  const PathCompaction c = compact(kFigure5[0].masks, NamedPermutation::kBalanced, 4);
  EXPECT_EQ(render(c.warps), (Rows{"08C4"}));
}

const std::vector<uint64_t> kFigure9b = {0x55, 0x55, 0x55, 0x55};  // Even logical lanes of every warp.
const std::vector<uint64_t> kFigure9c = {0x0f, 0x0f, 0x0f, 0x0f};  // First half-warp of every warp.

TEST(CompactionFigure9, PlacementsMatchTheFigure) {
  EXPECT_EQ(placed(kFigure9b, NamedPermutation::kIdentity, 8),
            (Rows{"0-2-4-6-", "8-A-C-E-", "G-I-K-M-", "O-Q-S-U-"}));
  EXPECT_EQ(placed(kFigure9b, NamedPermutation::kOddEven, 8),
            (Rows{"0-2-4-6-", "-8-A-C-E", "G-I-K-M-", "-O-Q-S-U"}));
  EXPECT_EQ(placed(kFigure9b, NamedPermutation::kRevWid, 8),
            (Rows{"0-2-4-6-", "C-E-8-A-", "I-G-M-K-", "U-S-Q-O-"}));
  EXPECT_EQ(placed(kFigure9b, NamedPermutation::kBalanced, 8),
            (Rows{"0-2-4-6-", "-E-C-A-8", "-G-I-K-M", "U-S-Q-O-"}));
  EXPECT_EQ(placed(kFigure9c, NamedPermutation::kIdentity, 8),
            (Rows{"0123----", "89AB----", "GHIJ----", "OPQR----"}));
  EXPECT_EQ(placed(kFigure9c, NamedPermutation::kOddEven, 8),
            (Rows{"0123----", "98BA----", "GHIJ----", "PORQ----"}));
  EXPECT_EQ(placed(kFigure9c, NamedPermutation::kRevWid, 8),
            (Rows{"0123----", "----89AB", "IJGH----", "----QROP"}));
  EXPECT_EQ(placed(kFigure9c, NamedPermutation::kBalanced, 8),
            (Rows{"0123----", "----BA98", "HGJI----", "----QROP"}));
}

TEST(CompactionFigure9, RevWidFailsOnAlternatingLanes) {  // Figure 9 (b)
  EXPECT_EQ(render(compact(kFigure9b, NamedPermutation::kIdentity, 8).warps),
            (Rows{"0-2-4-6-", "8-A-C-E-", "G-I-K-M-", "O-Q-S-U-"}));
  EXPECT_EQ(render(compact(kFigure9b, NamedPermutation::kOddEven, 8).warps), (Rows{"082A4C6E", "GOIQKSMU"}));
  EXPECT_EQ(render(compact(kFigure9b, NamedPermutation::kRevWid, 8).warps),
            (Rows{"0-2-4-6-", "C-E-8-A-", "I-G-M-K-", "U-S-Q-O-"}));
  EXPECT_EQ(render(compact(kFigure9b, NamedPermutation::kBalanced, 8).warps), (Rows{"0E2C4A68", "UGSIQKOM"}));
  const PathCompaction ideal = compact(kFigure9b, NamedPermutation::kIdentity, 8);
  EXPECT_EQ(ideal.ideal_warps, 2u);
  EXPECT_EQ(ideal.no_tbc_warps, 4u);
}

TEST(CompactionFigure9, OddEvenFailsOnHalfWarps) {  // Figure 9 (c)
  EXPECT_EQ(compact(kFigure9c, NamedPermutation::kIdentity, 8).tbc_warps(), 4u);
  EXPECT_EQ(render(compact(kFigure9c, NamedPermutation::kOddEven, 8).warps),
            (Rows{"0123----", "98BA----", "GHIJ----", "PORQ----"}));
  EXPECT_EQ(render(compact(kFigure9c, NamedPermutation::kRevWid, 8).warps), (Rows{"012389AB", "IJGHQROP"}));
  EXPECT_EQ(render(compact(kFigure9c, NamedPermutation::kBalanced, 8).warps), (Rows{"0123BA98", "HGJIQROP"}));
  EXPECT_EQ(compact(kFigure9c, NamedPermutation::kIdentity, 8).ideal_warps, 2u);
}

// For each physical lane, the path's threads homed there in increasing CTA thread order; formed warp k takes
// the k-th of every lane. Written independently of the compactor so the two can be compared.
std::vector<FormedWarp> per_lane_oracle(const std::vector<uint64_t>& masks, const LanePermutationMap& map) {
  const uint32_t width = map.width();
  std::vector<std::vector<int32_t>> queue(width);
  for (uint32_t warp = 0; warp < masks.size(); ++warp) {
    for (uint32_t lane = 0; lane < width; ++lane) {
      if ((masks[warp] >> lane) & 1) queue[map.home_lane(warp, lane)].push_back(int32_t(warp * width + lane));
    }
  }
  size_t depth = 0;
  for (const auto& q : queue) depth = std::max(depth, q.size());
  std::vector<FormedWarp> warps(depth, FormedWarp{0, std::vector<int32_t>(width, kIdleLane)});
  for (uint32_t home = 0; home < width; ++home) {
    for (size_t k = 0; k < queue[home].size(); ++k) {
      warps[k].lane[home] = queue[home][k];
      warps[k].lane_mask |= uint64_t{1} << home;
    }
  }
  return warps;
}

TEST(CompactionModel, MatchesPerLaneOracleOnRandomPaths) {
  simtlm::launch::SplitMix64 rng(2013);
  for (NamedPermutation p : kAllNamedPermutations) {
    for (uint32_t width : {4u, 8u, 32u, 64u}) {
      const LanePermutationMap map(p, width, 5);
      for (int trial = 0; trial < 20; ++trial) {
        std::vector<uint64_t> masks(1 + rng.next() % 16);
        uint32_t active = 0, warps_with_threads = 0;
        for (uint64_t& mask : masks) {
          // Sparse, dense and empty warps all occur.
          mask = rng.next() & (rng.next() % 2 ? rng.next() : ~uint64_t{0});
          if (width < 64) mask &= (uint64_t{1} << width) - 1;
          active += uint32_t(std::popcount(mask));
          warps_with_threads += mask != 0;
        }
        const PathCompaction c = compact_path(masks, map);
        ASSERT_EQ(c.warps, per_lane_oracle(masks, map)) << permutation_name(p) << " W" << width;
        EXPECT_EQ(c.active_threads, active);
        EXPECT_EQ(c.no_tbc_warps, warps_with_threads);
        EXPECT_EQ(c.ideal_warps, (active + width - 1) / width);
        EXPECT_LE(c.ideal_warps, c.tbc_warps());
        EXPECT_LE(c.tbc_warps(), c.no_tbc_warps);
      }
    }
  }
}

TEST(CompactionModel, LanesAboveTheWidthAndEmptyPathsAreIgnored) {
  const PathCompaction c = compact({0xf0, 0x0}, NamedPermutation::kIdentity, 4);
  EXPECT_TRUE(c.warps.empty());
  EXPECT_EQ(c.active_threads, 0u);
  EXPECT_EQ(c.no_tbc_warps, 0u);
  EXPECT_EQ(c.ideal_warps, 0u);
  EXPECT_TRUE(compact_path({}, LanePermutationMap(NamedPermutation::kBalanced, 32)).warps.empty());
}

TEST(CompactionModel, GeneralMappingMustBeAPermutationOfTheLanes) {
  const std::vector<uint64_t> masks = {0b1, 0b1};
  EXPECT_THROW(compact_path(masks, 4, [](uint32_t, uint32_t) { return 0u; }), std::invalid_argument);
  EXPECT_THROW(compact_path(masks, 4, [](uint32_t, uint32_t lane) { return lane + 1; }),
               std::invalid_argument);
  EXPECT_THROW(compact_path(masks, 6, [](uint32_t, uint32_t lane) { return lane; }), std::invalid_argument);
  // A mapping that is no named permutation: warp 1 reverses its lanes by arithmetic.
  const PathCompaction c =
      compact_path(masks, 4, [](uint32_t warp, uint32_t lane) { return warp ? 3 - lane : lane; });
  EXPECT_EQ(render(c.warps), (Rows{"0--4"}));
}

TEST(CompactionModel, RotateOdd1RunsThroughTheGeneralMapping) {
  // Figure 5 (a) 2 (lanes 0 and 1 of every warp): rotating odd warps by one stacks all four warps' threads in
  // lane 1, so nothing is saved.
  const PathCompaction c = compact(kFigure5[1].masks, NamedPermutation::kRotateOdd1, 4);
  EXPECT_EQ(render(c.warps), (Rows{"015-", "84D-", "-9--", "-C--"}));
}

}  // namespace
