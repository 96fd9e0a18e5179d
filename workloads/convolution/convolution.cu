// Separable 5-tap convolution in one kernel: a 16x16 output tile loads its (16+4)x(16+4) input
// apron into shared memory with clamp-to-edge addressing, does the row pass for all 20 rows (the
// first 4 rows of threads do a second row: divergence) and then the column pass.
// Blocks must be 16x16; each sum runs from tap 0 to tap 4 in order.

constexpr int kTile = 16;
constexpr int kRadius = 2;
constexpr int kApron = kTile + 2 * kRadius;

extern "C" __global__ void convolution_separable(const float* input, float* output, int width, int height,
                                                 float tap0, float tap1, float tap2, float tap3, float tap4) {
  __shared__ float tile[kApron][kApron];
  __shared__ float rows_done[kApron][kTile];
  const float taps[2 * kRadius + 1] = {tap0, tap1, tap2, tap3, tap4};
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int tile_x = blockIdx.x * kTile - kRadius, tile_y = blockIdx.y * kTile - kRadius;

  for (int i = ty * kTile + tx; i < kApron * kApron; i += kTile * kTile) {
    const int gx = min(max(tile_x + i % kApron, 0), width - 1);
    const int gy = min(max(tile_y + i / kApron, 0), height - 1);
    tile[i / kApron][i % kApron] = input[gy * width + gx];
  }
  __syncthreads();

  for (int row = ty; row < kApron; row += kTile) {
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k <= 2 * kRadius; ++k) sum += taps[k] * tile[row][tx + k];
    rows_done[row][tx] = sum;
  }
  __syncthreads();

  const int x = blockIdx.x * kTile + tx, y = blockIdx.y * kTile + ty;
  if (x < width && y < height) {
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k <= 2 * kRadius; ++k) sum += taps[k] * rows_done[ty + k][tx];
    output[y * width + x] = sum;
  }
}
