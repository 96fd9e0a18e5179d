// Data herding's popular-block selection (branch/data herding paper, Section IV). Model of
// rtl/popular_block_selector.v: finds the memory block most active lanes load from and moves every active
// lane's address into it, keeping the offset within the block.
#pragma once

#include <array>
#include <cstdint>
#include <span>

namespace simtlm::hw {

struct HerdedLoad {
  uint64_t block = 0;                  // Winning block id (address >> line_shift); 0 if no lane is active.
  uint32_t count = 0;                  // Active lanes already in that block.
  std::array<uint64_t, 64> address{};  // Rewritten addresses; inactive lanes keep theirs.
  bool operator==(const HerdedLoad&) const = default;
};

class BlockSelection {
 public:
  virtual ~BlockSelection() = default;
  // `address` has one entry per lane (the SIMD width); `line_shift` < address bits.
  // Tie rule: among blocks with equal counts, the block of the lowest-numbered active lane wins.
  virtual HerdedLoad select(std::span<const uint64_t> address, uint64_t active, uint32_t line_shift) = 0;
};

class PopularBlockSelector final : public BlockSelection {
 public:
  // `address_bits` is 32 or 64; higher address bits are ignored.
  explicit PopularBlockSelector(uint32_t width, uint32_t address_bits = 64);
  // Clock cycles the RTL takes for one selection when it examines width / rounds candidate lanes per cycle:
  // one cycle per round to compare and count, plus one to reduce the last round (the two stages overlap).
  static uint32_t latency_cycles(uint32_t rounds) { return rounds + 1; }
  HerdedLoad select(std::span<const uint64_t> address, uint64_t active, uint32_t line_shift) override;

 private:
  uint32_t width_;
  uint32_t address_bits_;
};

}  // namespace simtlm::hw
