// The warp-slice table and its combined per-slice reconvergence stacks (robust-simd paper, Figure 4).
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "hw/simt_stack.hpp"
#include "hw/units/warp_slice_table.hpp"
#include "models/ptx/ir.hpp"

namespace simtlm::hw {
namespace {

using ptx::kNoTarget;
using ptx::LaneMask;

// The paper's mask strings read lane 0 first: "11110000" is lanes 0..3. Spaces are ignored.
LaneMask lanes(const std::string& paper) {
  LaneMask mask = 0;
  uint32_t lane = 0;
  for (char c : paper) {
    if (c == ' ') continue;
    if (c == '1') mask |= LaneMask{1} << lane;
    ++lane;
  }
  return mask;
}

// A program shaped like Figure 4(a), blocks A..J at these PCs:
//   A: if (!c1) goto G    (reconverges at G)
//   B: if (c2) goto E     (reconverges at F)
//   C: ...                D: ... goto F
//   E: ...                F: ...
//   G: if (!c3) goto J    (reconverges at J)
//   H: ...  I: ...        J: exit
enum Block : uint32_t {
  A = 0x00,
  B = 0x10,
  C = 0x20,
  D = 0x30,
  E = 0x40,
  F = 0x50,
  G = 0x60,
  H = 0x70,
  I = 0x80,
  J = 0x90
};
constexpr uint32_t kPastExit = 0xa0;

SliceEntry slice_entry(const std::string& mask, uint32_t pc, uint32_t warp, uint32_t slice, uint32_t tos,
                       SliceStatus status) {
  return SliceEntry{lanes(mask), pc, warp, slice, tos, status};
}

// Figure 4(b) -> (c) -> (d)/(e), then both slices finish, merge and split again at width 2.
TEST(WarpSliceTable, Figure4SplitDivergeMergeResplit) {
  WarpSliceTable wst(1, 8, 8);
  // (b): the whole warp at A with one row.
  wst.start(0, lanes("11111111"), A);
  EXPECT_EQ(wst.entry(0), slice_entry("11111111", A, 0, 1, 1, SliceStatus::ready));

  // (c): two 4-wide slices, each with a copy of the row restricted to its lanes.
  ASSERT_EQ(wst.split(0, 4), (std::vector<uint32_t>{0, 4}));
  const uint32_t s1 = 0;
  const uint32_t s2 = 4;
  EXPECT_EQ(wst.entry(s1), slice_entry("11110000", A, 0, 1, 1, SliceStatus::ready));
  EXPECT_EQ(wst.entry(s2), slice_entry("00001111", A, 0, 2, 1, SliceStatus::ready));
  for (uint32_t e = 1; e < 8; ++e)
    if (e != s2) {
      EXPECT_EQ(wst.entry(e).status, SliceStatus::off) << e;
    }
  EXPECT_EQ(wst.physical_mask(0, 0), lanes("11111111"));

  // Slice 1: all its lanes go to G, then three of them fall through to H while the fourth jumps to J.
  wst.branch(s1, lanes("11110000"), G, B, G);
  EXPECT_EQ(wst.entry(s1).tos, 1u);
  EXPECT_EQ(wst.entry(s1).pc, G);
  wst.branch(s1, lanes("00010000"), J, H, J);
  EXPECT_EQ(wst.executing(s1), lanes("11100000"));

  // Slice 2: lanes 5 and 7 enter B (4 and 6 jump to G); at B lane 7 takes E, lane 5 falls through to C.
  wst.branch(s2, lanes("00001010"), G, B, G);
  EXPECT_EQ(wst.entry(s2).pc, B);
  wst.branch(s2, lanes("00000001"), E, C, F);
  EXPECT_EQ(wst.entry(s2).tos, 4u);
  EXPECT_EQ(wst.entry(s2).pc, E);
  wst.advance(s2, F);  // E ends at F: its row pops and C runs
  EXPECT_EQ(wst.entry(s2).pc, C);
  wst.advance(s2, D);

  // (d): slice 1 at H with TOS 2, slice 2 at D with TOS 3, both ready.
  EXPECT_EQ(wst.entry(s1), slice_entry("11110000", H, 0, 1, 2, SliceStatus::ready));
  EXPECT_EQ(wst.entry(s2), slice_entry("00001111", D, 0, 2, 3, SliceStatus::ready));
  EXPECT_EQ(wst.stack(s1), (std::vector<StackRow>{{J, kNoTarget, lanes("11110000")},  //
                                                  {H, J, lanes("11100000")}}));
  EXPECT_EQ(wst.stack(s2),
            (std::vector<StackRow>{
                {G, kNoTarget, lanes("00001111")}, {F, G, lanes("00000101")}, {D, F, lanes("00000100")}}));
  // (e): one physical stack; each row's mask word holds both slices' bits.
  EXPECT_EQ(wst.max_tos(0), 3u);
  EXPECT_EQ(wst.physical_mask(0, 0), lanes("1111 1111"));
  EXPECT_EQ(wst.physical_mask(0, 1), lanes("1110 0101"));
  EXPECT_EQ(wst.physical_mask(0, 2) & lanes("0000 1111"), lanes("0000 0100"));

  // Slice 1 reaches J (pops to the bottom row) and exits; slice 2 is still running, so no merge.
  wst.advance(s1, I);
  wst.advance(s1, J);
  EXPECT_EQ(wst.stack(s1), (std::vector<StackRow>{{J, kNoTarget, lanes("11110000")}}));
  wst.exit(s1, lanes("11110000"), kPastExit);
  EXPECT_TRUE(wst.stack_empty(s1));
  EXPECT_EQ(wst.entry(s1), slice_entry("11110000", kPastExit, 0, 1, 0, SliceStatus::finished));
  EXPECT_THROW(wst.merge(0), std::logic_error);

  // Slice 2: D -> F pops to the row of B's region, F -> G pops to the bottom; at G lanes 5 and 7 jump to J.
  wst.advance(s2, F);
  EXPECT_EQ(wst.entry(s2).tos, 2u);
  wst.advance(s2, G);
  EXPECT_EQ(wst.entry(s2).tos, 1u);
  EXPECT_EQ(wst.executing(s2), lanes("00001111"));
  wst.branch(s2, lanes("00000101"), J, H, J);
  EXPECT_EQ(wst.executing(s2), lanes("00001010"));
  wst.advance(s2, I);
  wst.advance(s2, J);
  EXPECT_EQ(wst.executing(s2), lanes("00001111"));
  wst.exit(s2, lanes("00001111"), kPastExit);
  EXPECT_EQ(wst.entry(s2).status, SliceStatus::finished);
  EXPECT_EQ(wst.max_tos(0), 0u);

  // Merge: OR of the masks in entry 0, entry 4 off.
  EXPECT_EQ(wst.merge(0), 0u);
  EXPECT_EQ(wst.entry(0), slice_entry("11111111", kPastExit, 0, 1, 0, SliceStatus::finished));
  EXPECT_EQ(wst.entry(4).status, SliceStatus::off);

  // Split at width 2: four finished slices with empty stacks, entries at their first lanes.
  ASSERT_EQ(wst.split(0, 2), (std::vector<uint32_t>{0, 2, 4, 6}));
  const char* masks[] = {"11000000", "00110000", "00001100", "00000011"};
  for (uint32_t i = 0; i < 4; ++i)
    EXPECT_EQ(wst.entry(2 * i), slice_entry(masks[i], kPastExit, 0, i + 1, 0, SliceStatus::finished)) << i;
  for (uint32_t e : {1u, 3u, 5u, 7u}) EXPECT_EQ(wst.entry(e).status, SliceStatus::off) << e;
  wst.start(2, lanes("00110000"), A);
  EXPECT_EQ(wst.entry(2), slice_entry("00110000", A, 0, 2, 1, SliceStatus::ready));
  EXPECT_EQ(wst.entry(0).status, SliceStatus::finished);
}

TEST(WarpSliceTable, ResetMakesEveryWarpOneFinishedSlice) {
  WarpSliceTable wst(2, 32, 4);
  EXPECT_EQ(wst.capacity(), 64u);
  EXPECT_EQ(wst.entry(0), (SliceEntry{0xffffffffu, 0, 0, 1, 0, SliceStatus::finished}));
  EXPECT_EQ(wst.entry(32), (SliceEntry{0xffffffffu, 0, 1, 1, 0, SliceStatus::finished}));
  for (uint32_t e = 1; e < 64; ++e)
    if (e != 32) {
      EXPECT_EQ(wst.entry(e).status, SliceStatus::off) << e;
    }
  EXPECT_THROW(wst.entry(64), std::out_of_range);
  EXPECT_THROW(WarpSliceTable(1, 33, 4), std::invalid_argument);
}

TEST(WarpSliceTable, ResidueSliceIsNarrower) {
  WarpSliceTable wst(1, 8, 4);
  ASSERT_EQ(wst.split(0, 3), (std::vector<uint32_t>{0, 3, 6}));
  EXPECT_EQ(wst.entry(0).mask, lanes("11100000"));
  EXPECT_EQ(wst.entry(3).mask, lanes("00011100"));
  EXPECT_EQ(wst.entry(6).mask, lanes("00000011"));
  EXPECT_EQ(wst.entry(6).slice, 3u);
  EXPECT_THROW(wst.split(0, 2), std::logic_error) << "only a merged warp splits";
  EXPECT_EQ(wst.merge(0), 0u);
  EXPECT_THROW(wst.split(0, 0), std::invalid_argument);
  EXPECT_THROW(wst.split(0, 9), std::invalid_argument);
}

TEST(WarpSliceTable, SlicesNeverMixWarps) {
  WarpSliceTable wst(2, 8, 4);
  wst.start(8, lanes("11111111"), B);
  ASSERT_EQ(wst.split(1, 3), (std::vector<uint32_t>{8, 11, 14}));
  ASSERT_EQ(wst.split(0, 8), (std::vector<uint32_t>{0}));
  EXPECT_EQ(wst.entry(11), slice_entry("00011100", B, 1, 2, 1, SliceStatus::ready));
  EXPECT_EQ(wst.entry(14), slice_entry("00000011", B, 1, 3, 1, SliceStatus::ready));
  EXPECT_EQ(wst.entry(0), slice_entry("11111111", 0, 0, 1, 0, SliceStatus::finished));
  // A divergence in warp 1 touches none of warp 0's rows.
  wst.branch(11, lanes("00010000"), C, D, E);
  EXPECT_EQ(wst.max_tos(1), 3u);
  EXPECT_EQ(wst.max_tos(0), 0u);
  EXPECT_EQ(wst.physical_mask(0, 1), 0u);
  EXPECT_EQ(wst.merge(0), 0u) << "warp 0 merges while warp 1 runs";
}

// A slice split off a diverged warp keeps only the rows holding its lanes.
TEST(WarpSliceTable, SplitCopiesTheRowsOfEachSlicesLanes) {
  WarpSliceTable wst(1, 8, 4);
  wst.start(0, lanes("11111111"), A);
  wst.branch(0, lanes("11000000"), B, C, D);  // rows: D waits (all), C (lanes 2..7), B (lanes 0, 1) runs
  ASSERT_EQ(wst.split(0, 4), (std::vector<uint32_t>{0, 4}));
  EXPECT_EQ(wst.stack(0),
            (std::vector<StackRow>{
                {D, kNoTarget, lanes("11110000")}, {C, D, lanes("00110000")}, {B, D, lanes("11000000")}}));
  EXPECT_EQ(wst.stack(4), (std::vector<StackRow>{{D, kNoTarget, lanes("00001111")},  //
                                                 {C, D, lanes("00001111")}}));
  EXPECT_EQ(wst.entry(4).pc, C);
}

TEST(WarpSliceTable, MergeRefusesRunningOrUnfinishedSlices) {
  WarpSliceTable wst(1, 8, 4);
  wst.split(0, 4);
  wst.start(4, lanes("00001111"), A);
  EXPECT_THROW(wst.merge(0), std::logic_error) << "slice 2 has a task";
  wst.exit(4, lanes("00001111"), B);
  wst.set_status(0, SliceStatus::ready);  // ready without a task still counts as running
  EXPECT_THROW(wst.merge(0), std::logic_error);
  wst.set_status(0, SliceStatus::dormant);
  EXPECT_THROW(wst.start(0, lanes("11110000"), A), std::logic_error) << "dormant slices take no task";
  EXPECT_EQ(wst.merge(0), 0u);
  EXPECT_EQ(wst.entry(0), slice_entry("11111111", 0, 0, 1, 0, SliceStatus::finished));
  EXPECT_THROW(wst.set_status(4, SliceStatus::ready), std::logic_error) << "entry 4 is off";
}

// A loop that loses lanes every iteration replaces its running row instead of stacking (divergent_paths).
TEST(WarpSliceTable, LoopLosingLanesKeepsConstantDepth) {
  WarpSliceTable wst(1, 4, 2);
  wst.start(0, 0xf, A);
  wst.branch(0, 0x7, A, B, B);  // lane 3 leaves the loop for B
  EXPECT_EQ(wst.stack(0), (std::vector<StackRow>{{B, kNoTarget, 0xf}, {A, B, 0x7}}));
  wst.branch(0, 0x3, A, B, B);
  EXPECT_EQ(wst.stack(0), (std::vector<StackRow>{{B, kNoTarget, 0xf}, {A, B, 0x3}}));
  wst.branch(0, 0x0, A, B, B);  // the last lanes leave: the running row reaches B and pops
  EXPECT_EQ(wst.stack(0), (std::vector<StackRow>{{B, kNoTarget, 0xf}}));
  EXPECT_EQ(wst.executing(0), 0xfu);
}

// Exited lanes leave every row of their slice, so the waiting row does not bring them back.
TEST(WarpSliceTable, ExitedLanesLeaveWaitingRows) {
  WarpSliceTable wst(1, 4, 4);
  wst.start(0, 0xf, A);
  wst.branch(0, 0x3, B, C, D);
  wst.exit(0, 0x1, E);  // lane 0 exits on path B, lane 1 goes on at E
  EXPECT_EQ(wst.stack(0), (std::vector<StackRow>{{D, kNoTarget, 0xe}, {C, D, 0xc}, {E, D, 0x2}}));
  wst.advance(0, D);
  wst.advance(0, D);
  EXPECT_EQ(wst.stack(0), (std::vector<StackRow>{{D, kNoTarget, 0xe}}));
  wst.exit(0, 0xe, F);
  EXPECT_EQ(wst.entry(0).status, SliceStatus::finished);
  EXPECT_THROW(wst.advance(0, A), std::logic_error) << "no task";
}

TEST(WarpSliceTable, OverflowNamesSliceAndPcAndChangesNothing) {
  WarpSliceTable wst(1, 8, 2);
  wst.split(0, 4);
  wst.start(4, lanes("00001111"), A);
  try {
    wst.branch(4, lanes("00001100"), B, C, D);  // D waits, C and B pushed: 3 rows
    FAIL() << "expected an overflow";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("slice 2"), std::string::npos) << what;
    EXPECT_NE(what.find("PC 0x0"), std::string::npos) << what;
    EXPECT_NE(what.find("needs 3 rows"), std::string::npos) << what;
  }
  EXPECT_EQ(wst.stack(4), (std::vector<StackRow>{{A, kNoTarget, lanes("00001111")}}));
  wst.branch(4, lanes("00001100"), B, D, D);  // the fall-through is already at D: 2 rows fit
  EXPECT_EQ(wst.entry(4).tos, 2u);
}

// Each slice of a split warp behaves exactly like a postdom SimtStack of its own lanes, whatever the other
// slices of the warp do in the shared physical rows: random branches, advances and exits on random slices.
TEST(WarpSliceTable, EverySliceMatchesAPostdomSimtStack) {
  StackParams params;
  params.discipline = Discipline::postdom;
  params.onchip_entries = 64;
  params.region_bytes = 1 << 16;
  const std::vector<uint32_t> pcs = {A, B, C, D, E, F};
  std::mt19937 random(2024);
  const auto pick_pc = [&] { return pcs[random() % pcs.size()]; };
  uint64_t compared = 0;
  for (uint32_t width : {8u, 4u, 3u, 1u}) {
    for (int run = 0; run < 50; ++run) {
      WarpSliceTable wst(1, 8, 64);
      wst.start(0, 0xff, A);
      const std::vector<uint32_t> slices = wst.split(0, width);
      std::vector<SimtStack> reference;
      for (uint32_t e : slices) {
        reference.emplace_back(params, 0);
        reference.back().reset(A, wst.entry(e).mask);
      }
      for (int op = 0; op < 60; ++op) {
        const size_t i = random() % slices.size();
        const uint32_t e = slices[i];
        SimtStack& stack = reference[i];
        if (stack.done() || stack.depth() > 48) continue;
        const auto lanes = static_cast<LaneMask>(random()) & stack.mask();
        switch (random() % 4) {
          case 0:
          case 1: {
            const uint32_t target = pick_pc();
            const uint32_t fallthrough = pick_pc();
            const uint32_t join = random() % 8 ? pick_pc() : kNoTarget;
            stack.branch(BranchOutcome{stack.pc(), stack.mask(), lanes, target, fallthrough, join});
            wst.branch(e, lanes, target, fallthrough, join);
            break;
          }
          case 2: {
            const uint32_t next = pick_pc();
            stack.advance(next);
            wst.advance(e, next);
            break;
          }
          default: {
            const LaneMask leaving = random() % 3 ? lanes & (lanes - 1) : lanes;  // mostly not all of them
            const uint32_t next = pick_pc();
            stack.exit(leaving, next);
            wst.exit(e, leaving, next);
            break;
          }
        }
        for (size_t j = 0; j < slices.size(); ++j) {
          const SliceEntry& s = wst.entry(slices[j]);
          ASSERT_EQ(wst.executing(slices[j]), reference[j].mask()) << "width " << width << " op " << op;
          ASSERT_EQ(s.tos, reference[j].depth()) << "width " << width << " op " << op;
          if (!reference[j].done()) {
            ASSERT_EQ(s.pc, reference[j].pc()) << "width " << width << " op " << op;
          }
          ASSERT_EQ(s.status, reference[j].done() ? SliceStatus::finished : SliceStatus::ready);
          ++compared;
        }
      }
    }
  }
  EXPECT_GT(compared, 10000u);
}

TEST(WarpSliceTable, StorageOfThePapersExample) {
  const WarpSliceTable::Storage paper = WarpSliceTable::storage(2, 32, 8, 8, 64);
  EXPECT_EQ(paper.entry_bits, 110u);  // 32 + 1 + 64 + 3 + 2 + 8
  EXPECT_EQ(paper.entries, 8u);
  EXPECT_EQ(paper.table_bytes, 112u);  // 8 entries of 14 B
  EXPECT_EQ(paper.stack_bytes, 1024u);
  const WarpSliceTable::Storage small = WarpSliceTable::storage(1, 8, 4, 4, 32);
  EXPECT_EQ(small.entry_bits, 52u);   // 8 + 0 + 32 + 2 + 2 + 8
  EXPECT_EQ(small.table_bytes, 28u);  // 4 entries of 7 B
  EXPECT_EQ(small.stack_bytes, 64u);  // 4 rows x 4 columns x 32 bits
}

}  // namespace
}  // namespace simtlm::hw
