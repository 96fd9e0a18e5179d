// Shared-memory indexing with a -tid term, after the style of Rodinia's Needleman-Wunsch kernel: nvcc
// folds the row into a negative 32-bit base register plus a positive immediate, which only lands in the
// array when the 32-bit address wraps (testbenches/unit/test_ptx_front_end.cpp).
#define TILE 16

__device__ __forceinline__ int max3(int a, int b, int c) {
  int m = a > b ? a : b;
  return m > c ? m : c;
}

// One 16x16 tile per CTA, 16 threads: the anti-diagonal wavefront of Needleman-Wunsch. score holds a
// 17x17 matrix per CTA whose first row and column are inputs.
extern "C" __global__ void nw_tile(const int* __restrict__ reference, int* score, int penalty) {
  __shared__ int temp[TILE + 1][TILE + 1];
  __shared__ int ref[TILE][TILE];
  const int tx = threadIdx.x;
  const int matrix = blockIdx.x * (TILE + 1) * (TILE + 1);
  for (int ty = 0; ty < TILE; ++ty) ref[ty][tx] = reference[blockIdx.x * TILE * TILE + ty * TILE + tx];
  temp[0][tx + 1] = score[matrix + tx + 1];
  temp[tx + 1][0] = score[matrix + (tx + 1) * (TILE + 1)];
  if (tx == 0) temp[0][0] = score[matrix];
  __syncthreads();
  for (int m = 0; m < TILE; ++m) {
    if (tx <= m) {
      const int x = tx + 1;
      const int y = m - tx + 1;
      temp[y][x] = max3(temp[y - 1][x - 1] + ref[y - 1][x - 1], temp[y][x - 1] - penalty,
                        temp[y - 1][x] - penalty);
    }
    __syncthreads();
  }
  for (int m = TILE - 2; m >= 0; --m) {
    if (tx <= m) {
      const int x = tx + TILE - m;
      const int y = TILE - tx;
      temp[y][x] = max3(temp[y - 1][x - 1] + ref[y - 1][x - 1], temp[y][x - 1] - penalty,
                        temp[y - 1][x] - penalty);
    }
    __syncthreads();
  }
  for (int ty = 0; ty < TILE; ++ty)
    score[matrix + (ty + 1) * (TILE + 1) + tx + 1] = temp[ty + 1][tx + 1];
}

// Flips a 16x16 block upside down through temp[16 - ty][tx]: out row r = 3 * in row (15 - r) + 1.
extern "C" __global__ void flip_rows(const int* __restrict__ in, int* out) {
  __shared__ int temp[TILE + 1][TILE + 1];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  temp[TILE - ty][tx] = in[ty * TILE + tx] * 3 + 1;
  __syncthreads();
  out[ty * TILE + tx] = temp[ty + 1][tx];
}
