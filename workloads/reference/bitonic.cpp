// Reference of workloads/bitonic: every CTA's chunk of blockDim.x keys sorted ascending.
#include <algorithm>

#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {

void bitonic(const launch::Launch& launch, Buffers& buffers) {
  const uint64_t chunk = launch.block.x;
  uint32_t* keys =
      checked_param_buffer<uint32_t>(launch, buffers, 0, launch.grid.x * chunk, "one key per thread");
  for (uint64_t cta = 0; cta < launch.grid.x; ++cta) std::sort(keys + cta * chunk, keys + (cta + 1) * chunk);
}

}  // namespace simtlm::workloads
