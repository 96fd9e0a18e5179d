// Reference of workloads/bfs_graph: level-synchronous BFS from node 0 with the kernels' two phases. Every
// writer of a level stores the same cost, so visiting the frontier in index order gives the kernels' result.
#include <cmath>
#include <vector>

#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {

void bfs_graph(const launch::Launch&, Buffers& buffers) {
  const int32_t* nodes = view<int32_t>(buffers, "nodes");  // {first edge, edge count} per node
  const int32_t* edges = view<int32_t>(buffers, "edges");
  int32_t* cost = view<int32_t>(buffers, "cost");
  uint8_t* visited = view<uint8_t>(buffers, "visited");
  uint8_t* frontier = view<uint8_t>(buffers, "frontier");
  uint8_t* updating = view<uint8_t>(buffers, "updating");
  const size_t node_count = count_of<int32_t>(buffers, "cost");
  frontier[0] = visited[0] = 1;
  cost[0] = 0;
  for (bool added = true; added;) {
    for (size_t node = 0; node < node_count; ++node) {
      if (!frontier[node]) continue;
      frontier[node] = 0;
      for (int32_t e = nodes[2 * node]; e < nodes[2 * node] + nodes[2 * node + 1]; ++e) {
        const auto neighbour = static_cast<size_t>(edges[e]);
        if (!visited[neighbour]) {
          cost[neighbour] = cost[node] + 1;
          updating[neighbour] = 1;
        }
      }
    }
    added = false;
    for (size_t node = 0; node < node_count; ++node) {
      if (!updating[node]) continue;
      frontier[node] = visited[node] = 1;
      updating[node] = 0;
      added = true;
    }
  }
  view<uint8_t>(buffers, "over")[0] = 0;
}

}  // namespace simtlm::workloads
