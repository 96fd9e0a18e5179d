// One level of a frontier-based BFS over a CSR graph (fixed number of edge slots per node; a slot
// holding an id >= node_count is empty). Divergence: frontier membership, per-node edge counts
// and the visited test. Writes are of one value per level, so the result is order independent.

extern "C" __global__ void bfs_step(const unsigned* row_offsets, const unsigned* edges,
                                    unsigned char* frontier, const unsigned char* visited,
                                    unsigned char* next_frontier, int* cost, unsigned* discovered,
                                    unsigned node_count, int level) {
  const unsigned node = blockIdx.x * blockDim.x + threadIdx.x;
  if (node < node_count && frontier[node]) {
    frontier[node] = 0;
    for (unsigned e = row_offsets[node]; e < row_offsets[node + 1]; ++e) {
      const unsigned neighbor = edges[e];
      if (neighbor < node_count && !visited[neighbor]) {
        cost[neighbor] = level + 1;
        next_frontier[neighbor] = 1;
        atomicAdd(discovered, 1u);  // counts edges into unvisited nodes
      }
    }
  }
}
