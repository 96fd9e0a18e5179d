// Needleman-Wunsch global alignment score matrix, after the shape of Rodinia's nw: the (n+1)x(n+1) matrix is
// cut into 16x16 tiles, processed as anti-diagonal waves of tiles; the host launches one grid per wave,
// first growing (upper-left triangle, needle_upper) then shrinking (lower-right, needle_lower). Each CTA of
// 16 threads loads its tile, the row above and the column to its left into 2-D shared arrays and sweeps the
// tile's own anti-diagonals with a barrier after each one. The -tx terms in the shared indices are what
// makes nvcc emit a negative base plus a positive offset for 32-bit shared addresses.

constexpr int kTile = 16;

__device__ __forceinline__ int best_of(int diagonal, int from_left, int from_above) {
  return max(diagonal, max(from_left, from_above));
}

// Border row and column: aligning a prefix against nothing costs one gap penalty per character.
extern "C" __global__ void nw_borders(int* score, int cols, int penalty) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= cols) return;
  score[i] = -i * penalty;
  score[i * cols] = -i * penalty;
}

__device__ void score_tile(const int* similarity, int* score, int cols, int penalty, int tile_x, int tile_y) {
  __shared__ int cell[kTile + 1][kTile + 1];
  __shared__ int match[kTile][kTile];
  const int tx = threadIdx.x;
  const int corner = cols * kTile * tile_y + kTile * tile_x;  // score[] index of the tile's north-west cell
  const int first = corner + cols + 1 + tx;                   // this thread's column, first tile row

  if (tx == 0) cell[0][0] = score[corner];
  for (int ty = 0; ty < kTile; ++ty) match[ty][tx] = similarity[first + cols * ty];
  __syncthreads();
  cell[tx + 1][0] = score[corner + cols * (tx + 1)];
  cell[0][tx + 1] = score[corner + tx + 1];
  __syncthreads();

  for (int wave = 0; wave < kTile; ++wave) {  // anti-diagonals that grow
    if (tx <= wave) {
      const int x = tx + 1, y = wave - tx + 1;
      cell[y][x] = best_of(cell[y - 1][x - 1] + match[y - 1][x - 1], cell[y][x - 1] - penalty,
                           cell[y - 1][x] - penalty);
    }
    __syncthreads();
  }
  for (int wave = kTile - 2; wave >= 0; --wave) {  // anti-diagonals that shrink
    if (tx <= wave) {
      const int x = tx + kTile - wave, y = kTile - tx;
      cell[y][x] = best_of(cell[y - 1][x - 1] + match[y - 1][x - 1], cell[y][x - 1] - penalty,
                           cell[y - 1][x] - penalty);
    }
    __syncthreads();
  }
  for (int ty = 0; ty < kTile; ++ty) score[first + cols * ty] = cell[ty + 1][tx + 1];
}

// Wave w (1-based) of the upper-left triangle: tiles (bx, w - 1 - bx) for bx < w.
extern "C" __global__ void needle_upper(const int* similarity, int* score, int cols, int penalty, int wave,
                                        int tiles) {
  score_tile(similarity, score, cols, penalty, blockIdx.x, wave - 1 - blockIdx.x);
}

// Wave w (from tiles - 1 down to 1) of the lower-right triangle: tiles (bx + tiles - w, tiles - 1 - bx).
extern "C" __global__ void needle_lower(const int* similarity, int* score, int cols, int penalty, int wave,
                                        int tiles) {
  score_tile(similarity, score, cols, penalty, blockIdx.x + tiles - wave, tiles - 1 - blockIdx.x);
}
