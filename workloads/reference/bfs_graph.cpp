// Reference of workloads/bfs_graph: level-synchronous BFS from node 0 with the kernels' two phases. Every
// writer of a level stores the same cost, so visiting the frontier in index order gives the kernels' result.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {

void bfs_graph(const launch::Launch& launch, Buffers& buffers) {
  const uint64_t node_count = std::max<uint64_t>(
      1, buffers.count("cost") ? count_of<int32_t>(buffers, "cost") : 0);  // the search starts at node 0
  const std::string per_node = "one per node (as buffer cost)";
  // {first edge, edge count} per node
  const int32_t* nodes = checked_view<int32_t>(launch, buffers, "nodes", 2 * node_count, "two per node");
  const int32_t* edges = checked_view<int32_t>(launch, buffers, "edges", 0, "");
  const size_t edge_count = count_of<int32_t>(buffers, "edges");
  int32_t* cost = checked_view<int32_t>(launch, buffers, "cost", node_count, "the search starts at node 0");
  uint8_t* visited = checked_view<uint8_t>(launch, buffers, "visited", node_count, per_node);
  uint8_t* frontier = checked_view<uint8_t>(launch, buffers, "frontier", node_count, per_node);
  uint8_t* updating = checked_view<uint8_t>(launch, buffers, "updating", node_count, per_node);
  checked_view<uint8_t>(launch, buffers, "over", 1, "the host loop's flag");
  for (size_t node = 0; node < node_count; ++node) {
    const int64_t first = nodes[2 * node], count = nodes[2 * node + 1];
    if (count > 0 && (first < 0 || uint64_t(first) + uint64_t(count) > edge_count)) {
      reference_error(
          launch, fmt::format("node {}'s edges [{}, {}) are outside the {} elements of buffer edges", node,
                              first, first + count, edge_count));
    }
    for (int64_t e = first; e < first + count; ++e) {
      if (edges[e] < 0 || uint64_t(edges[e]) >= node_count) {
        reference_error(launch,
                        fmt::format("edges[{}] = {} is not a node (there are {})", e, edges[e], node_count));
      }
    }
  }
  frontier[0] = visited[0] = 1;
  cost[0] = 0;
  for (bool added = true; added;) {
    for (size_t node = 0; node < node_count; ++node) {
      if (!frontier[node]) continue;
      frontier[node] = 0;
      for (int64_t e = nodes[2 * node]; e < int64_t{nodes[2 * node]} + nodes[2 * node + 1]; ++e) {
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
