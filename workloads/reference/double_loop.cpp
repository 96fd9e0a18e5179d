// Reference of workloads/double_loop: M = trip_count(lane, n_outer) times, do
// N = trip_count(lane, n_inner) times += 1.3333f, then += 2.3333f.
#include "workloads/reference/divergent_loops.hpp"
#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {

void double_loop(const launch::Launch& launch, Buffers& buffers) {
  const uint64_t threads = uint64_t{launch.grid.x} * launch.block.x;
  float* out = checked_param_buffer<float>(launch, buffers, 0, threads, "one per thread of grid.x x block.x");
  const int n_outer = static_cast<int>(param_int(launch, 1));
  const int n_inner = static_cast<int>(param_int(launch, 2));
  for (uint64_t tid = 0; tid < threads; ++tid) {
    const uint32_t lane = tid % launch.block.x % 32;
    const int outer_trips = table1_trip_count(lane, n_outer);
    const int inner_trips = table1_trip_count(lane, n_inner);
    float sum = out[tid];
    for (int i = 0; i < outer_trips; ++i) {
      for (int j = 0; j < inner_trips; ++j) sum += 1.3333f;
      sum += 2.3333f;
    }
    out[tid] = sum;
  }
}

}  // namespace simtlm::workloads
