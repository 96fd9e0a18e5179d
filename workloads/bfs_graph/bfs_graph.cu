// Level-synchronous breadth-first search over a CSR graph, after the shape of the classic two-kernel GPU BFS
// (Rodinia's bfs): the host relaunches both kernels until no node was added to the next frontier.
//   expand: every frontier node clears its mask bit and marks its unvisited neighbours as updating, with
//           their cost one more than its own (all writers of a level store the same value, so the result
//           does not depend on thread order).
//   commit: every updating node joins the frontier, becomes visited and sets the host's "over" flag.

struct Node {
  int first_edge;
  int edge_count;
};

extern "C" __global__ void bfs_expand(const Node* nodes, const int* edges, bool* frontier, bool* updating,
                                      const bool* visited, int* cost, int node_count) {
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= node_count || !frontier[tid]) return;
  frontier[tid] = false;
  const Node node = nodes[tid];
  for (int e = node.first_edge; e < node.first_edge + node.edge_count; ++e) {
    const int neighbour = edges[e];
    if (!visited[neighbour]) {
      cost[neighbour] = cost[tid] + 1;
      updating[neighbour] = true;
    }
  }
}

extern "C" __global__ void bfs_commit(bool* frontier, bool* updating, bool* visited, bool* over,
                                      int node_count) {
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= node_count || !updating[tid]) return;
  frontier[tid] = true;
  visited[tid] = true;
  *over = true;
  updating[tid] = false;
}
