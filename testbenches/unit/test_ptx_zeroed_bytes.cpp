// Per-warp .local frames (models/ptx/zeroed_bytes.hpp): zeroed, copyable, and backed by host memory only
// where written, so a frame at the 512 KiB-per-thread limit does not cost 16 MiB per warp up front.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <utility>
#include <vector>

#include "models/ptx/zeroed_bytes.hpp"

namespace simtlm::ptx {
namespace {

uint64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * uint64_t(sysconf(_SC_PAGESIZE));
}

TEST(ZeroedBytes, ResetGivesZerosAndDropsOldContents) {
  for (size_t size : {size_t{64}, size_t{4} << 20}) {
    ZeroedBytes bytes;
    bytes.reset(size);
    ASSERT_EQ(bytes.size(), size);
    bytes.data()[size - 1] = 7;
    bytes.reset(size);
    EXPECT_TRUE(std::all_of(bytes.data(), bytes.data() + size, [](uint8_t b) { return b == 0; })) << size;
  }
  ZeroedBytes empty;
  empty.reset(0);
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_EQ(empty.data(), nullptr);
}

TEST(ZeroedBytes, CopiesAreDeepAndMovesTransfer) {
  ZeroedBytes original;
  original.reset(size_t{2} << 20);
  original.data()[12345] = 42;
  ZeroedBytes copy = original;
  copy.data()[12345] = 1;
  EXPECT_EQ(original.data()[12345], 42);
  ZeroedBytes moved = std::move(original);
  EXPECT_EQ(moved.size(), size_t{2} << 20);
  EXPECT_EQ(moved.data()[12345], 42);
  EXPECT_EQ(original.size(), 0u);  // NOLINT(bugprone-use-after-move): the moved-from state is specified
}

TEST(ZeroedBytes, UntouchedPagesCostNoHostMemoryEvenWhenResetAgain) {
  // 16 warps at the .local limit (16 MiB each), set up three times as CTAs come and go, one word written.
  std::vector<ZeroedBytes> warps(16);
  const uint64_t before = resident_bytes();
  for (int cta = 0; cta < 3; ++cta) {
    for (ZeroedBytes& warp : warps) {
      warp.reset(size_t{16} << 20);
      warp.data()[0] = 1;
    }
  }
  EXPECT_LT(resident_bytes() - before, uint64_t{32} << 20);  // 256 MiB if the frames were written whole
}

}  // namespace
}  // namespace simtlm::ptx
