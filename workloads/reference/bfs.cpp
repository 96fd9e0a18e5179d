// Reference of workloads/bfs: one BFS level. All writes store per-level constants, so visiting
// frontier nodes in index order gives the kernel's result whatever its thread order.
#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {

void bfs(const launch::Launch& launch, Buffers& buffers) {
  const uint32_t* row_offsets = param_buffer<uint32_t>(launch, buffers, 0);
  const uint32_t* edges = param_buffer<uint32_t>(launch, buffers, 1);
  uint8_t* frontier = param_buffer<uint8_t>(launch, buffers, 2);
  const uint8_t* visited = param_buffer<uint8_t>(launch, buffers, 3);
  uint8_t* next_frontier = param_buffer<uint8_t>(launch, buffers, 4);
  int32_t* cost = param_buffer<int32_t>(launch, buffers, 5);
  uint32_t* discovered = param_buffer<uint32_t>(launch, buffers, 6);
  const uint32_t node_count = static_cast<uint32_t>(param_int(launch, 7));
  const int32_t level = static_cast<int32_t>(param_int(launch, 8));
  const uint64_t threads = launch.grid.x * uint64_t{launch.block.x};
  for (uint32_t node = 0; node < node_count && node < threads; ++node) {
    if (!frontier[node]) continue;
    frontier[node] = 0;
    for (uint32_t e = row_offsets[node]; e < row_offsets[node + 1]; ++e) {
      const uint32_t neighbor = edges[e];
      if (neighbor < node_count && !visited[neighbor]) {
        cost[neighbor] = static_cast<int32_t>(static_cast<uint32_t>(level) + 1u);
        next_frontier[neighbor] = 1;
        ++*discovered;
      }
    }
  }
}

}  // namespace simtlm::workloads
