// Reference of workloads/reduction: the same interleaved tree as the kernel, level by level, so
// the float sums round identically.
#include <string>
#include <vector>

#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {

void reduction(const launch::Launch& launch, Buffers& buffers) {
  const uint32_t block = launch.block.x;
  // The kernel's tree reads partial[tid + stride] for every stride below blockDim.x: past the block's own
  // values unless it is a power of two.
  if (block == 0 || (block & (block - 1)) != 0)
    reference_error(launch, "block.x must be a power of two (the tree adds partial[tid + stride]), not " +
                                std::to_string(block));
  const float* input = checked_param_buffer<float>(launch, buffers, 0, uint64_t{launch.grid.x} * block,
                                                   "one per thread of grid.x x block.x");
  float* block_sums = checked_param_buffer<float>(launch, buffers, 1, launch.grid.x, "one per CTA");
  std::vector<float> partial(block);
  for (uint32_t cta = 0; cta < launch.grid.x; ++cta) {
    partial.assign(input + cta * block, input + (cta + 1) * block);
    for (uint32_t stride = 1; stride < block; stride *= 2) {
      for (uint32_t tid = 0; tid < block; tid += 2 * stride) partial[tid] += partial[tid + stride];
    }
    block_sums[cta] = partial[0];
  }
}

}  // namespace simtlm::workloads
