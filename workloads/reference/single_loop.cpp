// Reference of workloads/single_loop: out[tid] += 1.3333f, trip_count(lane, n) times in order.
#include "workloads/reference/divergent_loops.hpp"
#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {

void single_loop(const launch::Launch& launch, Buffers& buffers) {
  float* out = param_buffer<float>(launch, buffers, 0);
  const int n = static_cast<int>(param_int(launch, 1));
  for (uint32_t tid = 0; tid < launch.grid.x * launch.block.x; ++tid) {
    const int trips = table1_trip_count(tid % launch.block.x % 32, n);
    float sum = out[tid];
    for (int i = 0; i < trips; ++i) sum += 1.3333f;
    out[tid] = sum;
  }
}

}  // namespace simtlm::workloads
