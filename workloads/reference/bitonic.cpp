// Reference of workloads/bitonic: every CTA's chunk of blockDim.x keys sorted ascending.
#include <algorithm>

#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {

void bitonic(const launch::Launch& launch, Buffers& buffers) {
  uint32_t* keys = param_buffer<uint32_t>(launch, buffers, 0);
  const uint32_t chunk = launch.block.x;
  for (uint32_t cta = 0; cta < launch.grid.x; ++cta) std::sort(keys + cta * chunk, keys + (cta + 1) * chunk);
}

}  // namespace simtlm::workloads
