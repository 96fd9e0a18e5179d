// A Rodinia-pathfinder-like dynamic programme: the cheapest path from the top row of a cost grid to each
// cell of the bottom row, moving down one row and at most one column per step. A CTA advances `steps`
// rows at once ("pyramid"): it loads BLOCK + 2*halo columns and shrinks its valid range by one per row.
#define BLOCK 64

__global__ void path_rows(int steps, const int* wall, const int* src, int* dst, int cols, int start_row,
                          int halo) {
  __shared__ int prev[BLOCK];
  __shared__ int next[BLOCK];
  const int tx = threadIdx.x;
  const int computed = BLOCK - 2 * halo;  // columns this CTA owns
  const int first = computed * blockIdx.x - halo;
  const int col = first + tx;
  const bool inside = col >= 0 && col < cols;
  if (inside) prev[tx] = src[col];
  __syncthreads();
  bool valid = false;
  for (int s = 0; s < steps; ++s) {
    valid = tx >= s + 1 && tx <= BLOCK - 2 - s && inside;
    if (valid) {
      int best = prev[tx];
      if (col > 0 && prev[tx - 1] < best) best = prev[tx - 1];
      if (col < cols - 1 && prev[tx + 1] < best) best = prev[tx + 1];
      next[tx] = best + wall[(start_row + s + 1) * cols + col];
    }
    __syncthreads();
    if (valid) prev[tx] = next[tx];
    __syncthreads();
  }
  if (valid && tx >= halo && tx < BLOCK - halo) dst[col] = prev[tx];
}
