// Reference of workloads/bfs: one BFS level. All writes store per-level constants, so visiting
// frontier nodes in index order gives the kernel's result whatever its thread order.
#include <fmt/format.h>

#include <algorithm>

#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {

void bfs(const launch::Launch& launch, Buffers& buffers) {
  const uint32_t node_count = static_cast<uint32_t>(param_int(launch, 7));
  const int32_t level = static_cast<int32_t>(param_int(launch, 8));
  const uint64_t threads = launch.grid.x * uint64_t{launch.block.x};
  const uint64_t nodes = std::min<uint64_t>(node_count, threads);  // the nodes the grid visits
  const std::string per_node = "one per node (parameter 7)";
  const uint32_t* row_offsets = checked_param_buffer<uint32_t>(launch, buffers, 0, nodes ? nodes + 1 : 0,
                                                               "one more than the nodes the grid visits");
  const uint32_t* edges = checked_param_buffer<uint32_t>(launch, buffers, 1, 0, "");
  const size_t edge_count = count_of<uint32_t>(buffers, param_buffer_name(launch, 1));
  uint8_t* frontier =
      checked_param_buffer<uint8_t>(launch, buffers, 2, nodes, "one per node the grid visits");
  const uint8_t* visited = checked_param_buffer<uint8_t>(launch, buffers, 3, node_count, per_node);
  uint8_t* next_frontier = checked_param_buffer<uint8_t>(launch, buffers, 4, node_count, per_node);
  int32_t* cost = checked_param_buffer<int32_t>(launch, buffers, 5, node_count, per_node);
  uint32_t* discovered = checked_param_buffer<uint32_t>(launch, buffers, 6, 1, "the discovered counter");
  for (uint32_t node = 0; node < nodes; ++node) {
    if (!frontier[node]) continue;
    frontier[node] = 0;
    if (row_offsets[node] < row_offsets[node + 1] && row_offsets[node + 1] > edge_count) {
      reference_error(launch,
                      fmt::format("node {}'s edges end at {}, past the {} elements of buffer {}", node,
                                  row_offsets[node + 1], edge_count, param_buffer_name(launch, 1)));
    }
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
