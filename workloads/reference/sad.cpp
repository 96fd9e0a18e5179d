// Reference of workloads/sad: per CTA (4x4 block of the current frame) and per candidate displacement the
// SAD against the displaced reference block, 0xffff where that block leaves the frame. Candidates beyond
// the CTA's threads keep their initial values, as in the kernel.
#include <algorithm>
#include <cstdlib>

#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {

void sad(const launch::Launch& launch, Buffers& buffers) {
  constexpr int kBlock = 4;
  const int width = static_cast<int>(param_int(launch, 3));
  const int height = static_cast<int>(param_int(launch, 4));
  const int range = static_cast<int>(param_int(launch, 5));
  if (range < 0 || range > 127) reference_error(launch, "range (parameter 5) must lie in [0, 127]");
  const int side = 2 * range + 1;
  const int blocks_x = width / kBlock;
  const uint64_t block_count = launch.grid.x;
  if (block_count > elements(blocks_x, height / kBlock)) {
    reference_error(launch, "grid.x (" + std::to_string(block_count) +
                                ") must not exceed the current frame's 4x4 blocks");
  }
  const uint64_t pixels = elements(width, height);
  const uint8_t* current = checked_param_buffer<uint8_t>(launch, buffers, 0, pixels, "width x height");
  const uint8_t* reference = checked_param_buffer<uint8_t>(launch, buffers, 1, pixels, "width x height");
  uint16_t* sads = checked_param_buffer<uint16_t>(launch, buffers, 2, block_count * elements(side, side),
                                                  "one per CTA and displacement");
  const int candidates = static_cast<int>(std::min<uint64_t>(launch.block.x, elements(side, side)));
  for (uint64_t block = 0; block < block_count; ++block) {
    const int block_x = static_cast<int>(block % blocks_x) * kBlock;
    const int block_y = static_cast<int>(block / blocks_x) * kBlock;
    for (int candidate = 0; candidate < candidates; ++candidate) {
      const int ref_x = block_x + candidate % side - range;
      const int ref_y = block_y + candidate / side - range;
      uint16_t result = 0xffff;
      if (ref_x >= 0 && ref_y >= 0 && ref_x + kBlock <= width && ref_y + kBlock <= height) {
        int sum = 0;
        for (int row = 0; row < kBlock; ++row) {
          for (int col = 0; col < kBlock; ++col) {
            sum += std::abs(current[(block_y + row) * width + block_x + col] -
                            reference[(ref_y + row) * width + ref_x + col]);
          }
        }
        result = static_cast<uint16_t>(sum);
      }
      sads[block * side * side + candidate] = result;
    }
  }
}

}  // namespace simtlm::workloads
