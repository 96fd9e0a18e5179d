// The warp-synchronous check (hw/warp_sync_checker.hpp): a shared read of another lane's write of the same
// warp is a hazard only when the two lanes ran the store apart, with no barrier and no reconvergence between.
#include <gtest/gtest.h>

#include "hw/warp_sync_checker.hpp"

namespace simtlm::hw::test::warp_sync {
namespace {

constexpr ptx::LaneMask kAll = 0xffffffffu;
constexpr ptx::LaneMask kLow = 0x0000ffffu, kHigh = 0xffff0000u;  // a warp split in two

struct Checker {
  WarpSyncChecker c;
  Checker() { c.start_cta(0, 7, 4, 256); }
  WarpSyncChecker::Hazard* store(uint32_t lane, ptx::LaneMask part, uint64_t addr, uint32_t pc = 10) {
    c.issue(0, 1, part, kAll);
    return c.access(0, 1, lane, part, addr, 4, true, pc);
  }
  WarpSyncChecker::Hazard* load(uint32_t lane, ptx::LaneMask part, uint64_t addr, uint32_t pc = 20,
                                uint32_t warp = 1) {
    c.issue(0, warp, part, kAll);
    return c.access(0, warp, lane, part, addr, 4, false, pc);
  }
};

TEST(WarpSyncChecker, ALaneReadingAnotherHalfsWriteOfItsSplitWarpIsAHazard) {
  Checker k;
  EXPECT_EQ(k.store(20, kHigh, 0x40), nullptr);
  WarpSyncChecker::Hazard* h = k.load(3, kLow, 0x40);
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->write_pc, 10u);
  EXPECT_EQ(h->read_pc, 20u);
  EXPECT_EQ(h->writer_lane, 20u);
  EXPECT_EQ(h->reader_lane, 3u);
  EXPECT_EQ(h->warp, 1u);
  EXPECT_EQ(h->cta_linear, 7u);
  EXPECT_EQ(h->address, 0x40u);
  EXPECT_EQ(k.load(4, kLow, 0x40), nullptr);  // the same pair again: counted, not new
  EXPECT_EQ(k.c.hazards(), 2u);
  ASSERT_EQ(k.c.reports().size(), 1u);
  EXPECT_EQ(k.c.reports()[0].count, 2u);
}

TEST(WarpSyncChecker, LanesThatRanTheStoreTogetherReadEachOthersWrites) {
  Checker k;
  k.store(20, kAll, 0x40);                    // lockstep: the whole warp stored
  EXPECT_EQ(k.load(3, kLow, 0x40), nullptr);  // lane 3 was in the store's part
  EXPECT_EQ(k.c.hazards(), 0u);
}

TEST(WarpSyncChecker, ABarrierOrSyncwarpBetweenWriteAndReadIsNoHazard) {
  Checker k;
  k.store(20, kHigh, 0x40);
  k.c.synchronize(0, 1);
  EXPECT_EQ(k.load(3, kLow, 0x40), nullptr);
  EXPECT_EQ(k.c.hazards(), 0u);
}

TEST(WarpSyncChecker, AWarpWholeAgainSinceTheWriteHasReconverged) {
  Checker k;
  k.store(20, kHigh, 0x40);
  k.c.issue(0, 1, kAll, kAll);  // every live lane issues together again
  EXPECT_EQ(k.load(3, kLow, 0x40), nullptr);
  // Lanes that exited do not keep the warp split: the live ones together are whole.
  k.store(20, kHigh, 0x80);
  k.c.issue(0, 1, kHigh, kHigh);
  EXPECT_EQ(k.load(3, kLow, 0x80), nullptr);
  EXPECT_EQ(k.c.hazards(), 0u);
}

TEST(WarpSyncChecker, OwnWritesOtherWarpsAndOtherWordsAreNoHazard) {
  Checker k;
  k.store(20, kHigh, 0x40);
  EXPECT_EQ(k.load(20, kHigh, 0x40), nullptr);                // its own write
  EXPECT_EQ(k.load(3, kLow, 0x40, 20, /*warp=*/2), nullptr);  // another warp: a barrier's business
  EXPECT_EQ(k.load(3, kLow, 0x44), nullptr);                  // the next word
  EXPECT_EQ(k.c.hazards(), 0u);
}

TEST(WarpSyncChecker, AWideAccessIsCheckedWordByWordAndANewCtaForgetsTheOld) {
  Checker k;
  k.c.issue(0, 1, kHigh, kAll);
  k.c.access(0, 1, 20, kHigh, 0x40, 16, true, 10);  // a v4 store: words 0x40..0x4c
  k.c.issue(0, 1, kLow, kAll);
  ASSERT_NE(k.c.access(0, 1, 3, kLow, 0x48, 8, false, 20), nullptr);
  EXPECT_EQ(k.c.hazards(), 2u);  // 0x48 and 0x4c
  k.c.start_cta(0, 8, 4, 256);
  EXPECT_EQ(k.load(3, kLow, 0x40), nullptr);
  k.c.reset();
  EXPECT_EQ(k.c.hazards(), 0u);
  EXPECT_TRUE(k.c.reports().empty());
}

}  // namespace
}  // namespace simtlm::hw::test::warp_sync
