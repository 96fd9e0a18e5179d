// popular_block_selector.v against hw::PopularBlockSelector on clustered random addresses.
#include <gtest/gtest.h>

#include <bit>
#include <sstream>
#include <vector>

#include "Vpopular_block_selector_w16.h"
#include "Vpopular_block_selector_w32.h"
#include "Vpopular_block_selector_w64.h"
#include "Vpopular_block_selector_w8.h"
#include "Vpopular_block_selector_w8_a32.h"
#include "hw/units/select/rtl_twins.hpp"
#include "testbenches/rtl/vectors.hpp"

namespace simtlm::rtl_test {
namespace {

using hw::rtl::RtlBlockSelector;

// Lanes pick among a few blocks (so counts collide and ties happen) with random offsets inside the block.
std::vector<uint64_t> clustered_addresses(VectorSource& source, uint32_t width, uint32_t line_shift) {
  const uint64_t offset_mask = (uint64_t{1} << line_shift) - 1;
  std::vector<uint64_t> blocks(1 + source.below(source.below(2) ? 4 : width));
  for (uint64_t& base : blocks) base = source.bits() & ~offset_mask;
  std::vector<uint64_t> address(width);
  for (uint64_t& a : address) a = blocks[source.below(blocks.size())] | (source.bits() & offset_mask);
  return address;
}

// Whether another block has as many active lanes as the winner (so the tie rule decided).
bool is_tie(const std::vector<uint64_t>& address, uint64_t active, uint32_t line_shift, uint32_t address_bits,
            const hw::HerdedLoad& winner) {
  const uint64_t address_mask = address_bits == 64 ? ~uint64_t{0} : (uint64_t{1} << address_bits) - 1;
  auto block_of = [&](size_t lane) { return (address[lane] & address_mask) >> line_shift; };
  for (size_t lane = 0; lane < address.size(); ++lane) {
    if (!((active >> lane) & 1) || block_of(lane) == winner.block) continue;
    uint32_t count = 0;
    for (size_t other = 0; other < address.size(); ++other) {
      count += ((active >> other) & 1) && block_of(other) == block_of(lane);
    }
    if (count == winner.count) return true;
  }
  return false;
}

template <typename V>
void random_equivalence(uint32_t width, uint32_t address_bits, uint64_t vectors) {
  hw::PopularBlockSelector model(width, address_bits);
  RtlBlockSelector<V> rtl(width, address_bits);
  VectorSource source(width + address_bits);
  uint64_t ties = 0;
  uint64_t herded = 0;
  for (uint64_t i = 0; i < vectors; ++i) {
    // Mostly cache-line-like shifts, sometimes any legal shift.
    const auto line_shift =
        static_cast<uint32_t>(source.below(4) ? 2 + source.below(7) : source.below(address_bits));
    const std::vector<uint64_t> address = clustered_addresses(source, width, line_shift);
    const uint64_t active = source.mask(width);
    const hw::HerdedLoad expected = model.select(address, active, line_shift);
    const hw::HerdedLoad got = rtl.select(address, active, line_shift);
    if (expected != got) {
      std::ostringstream inputs;
      inputs << std::hex << "active=0x" << active << std::dec << " line_shift=" << line_shift << " address=[";
      for (uint64_t a : address) inputs << " " << std::hex << a;
      FAIL() << "vector " << i << ": " << inputs.str() << " ]\nmodel " << ::testing::PrintToString(expected)
             << "\nrtl   " << ::testing::PrintToString(got);
    }
    herded += expected.count > 0 && expected.count < static_cast<uint32_t>(std::popcount(active));
    ties += is_tie(address, active, line_shift, address_bits, expected);
  }
  EXPECT_GT(ties, 0u) << "the stimulus never produced a tie";
  EXPECT_GT(herded, vectors / 10) << "too few vectors needed herding";
}

TEST(RtlPopularBlock, W8Random) {
  random_equivalence<Vpopular_block_selector_w8>(8, 64, 200000);
}
TEST(RtlPopularBlock, W8Address32Random) {
  random_equivalence<Vpopular_block_selector_w8_a32>(8, 32, 200000);
}
TEST(RtlPopularBlock, W16Random) {
  random_equivalence<Vpopular_block_selector_w16>(16, 64, 100000);
}
TEST(RtlPopularBlock, W32Random) {
  random_equivalence<Vpopular_block_selector_w32>(32, 64, 50000);
}
TEST(RtlPopularBlock, W64Random) {
  random_equivalence<Vpopular_block_selector_w64>(64, 64, 20000);
}

}  // namespace
}  // namespace simtlm::rtl_test
