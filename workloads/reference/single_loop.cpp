// Reference of workloads/single_loop: out[tid] += 1.3333f, trip_count(lane, n) times in order.
#include "workloads/reference/divergent_loops.hpp"
#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {

void single_loop(const launch::Launch& launch, Buffers& buffers) {
  const uint64_t threads = uint64_t{launch.grid.x} * launch.block.x;
  float* out = checked_param_buffer<float>(launch, buffers, 0, threads, "one per thread of grid.x x block.x");
  const int n = static_cast<int>(param_int(launch, 1));
  for (uint64_t tid = 0; tid < threads; ++tid) {
    const int trips = table1_trip_count(tid % launch.block.x % 32, n);
    float sum = out[tid];
    for (int i = 0; i < trips; ++i) sum += 1.3333f;
    out[tid] = sum;
  }
}

}  // namespace simtlm::workloads
