// Reference of workloads/histogram: byte counts of the first `count` bytes added to the bins
// (u32 wrap-around, like the kernel's atomics).
#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {

void histogram(const launch::Launch& launch, Buffers& buffers) {
  const uint32_t count = static_cast<uint32_t>(param_int(launch, 1));
  const uint8_t* data = checked_param_buffer<uint8_t>(launch, buffers, 0, count, "count (parameter 1) bytes");
  uint32_t* bins = checked_param_buffer<uint32_t>(launch, buffers, 2, 256, "one bin per byte value");
  for (uint32_t i = 0; i < count; ++i) ++bins[data[i]];
}

}  // namespace simtlm::workloads
