// A Rodinia-hotspot-like thermal step: each CTA loads a 16x16 tile of temperatures plus a one-cell halo
// into shared memory and computes the next temperature from the four neighbours and the power map.
// The host swaps the ping-pong halves of one buffer by parameter order ("temp + (i % 2) * n").
#define TILE 16

__global__ void calculate_temp(const float* power, const float* temp_src, float* temp_dst, int rows, int cols,
                               float cap_inv, float rx_inv, float ry_inv, float rz_inv, float ambient) {
  __shared__ float tile[TILE + 2][TILE + 2];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int col = blockIdx.x * TILE + tx;
  const int row = blockIdx.y * TILE + ty;
  // Clamp at the chip border, as the original replicates edge cells.
  const int rc = min(max(row, 0), rows - 1);
  const int cc = min(max(col, 0), cols - 1);
  tile[ty + 1][tx + 1] = temp_src[rc * cols + cc];
  if (tx == 0) tile[ty + 1][0] = temp_src[rc * cols + max(cc - 1, 0)];
  if (tx == TILE - 1) tile[ty + 1][TILE + 1] = temp_src[rc * cols + min(cc + 1, cols - 1)];
  if (ty == 0) tile[0][tx + 1] = temp_src[max(rc - 1, 0) * cols + cc];
  if (ty == TILE - 1) tile[TILE + 1][tx + 1] = temp_src[min(rc + 1, rows - 1) * cols + cc];
  __syncthreads();
  if (row < rows && col < cols) {
    const float t = tile[ty + 1][tx + 1];
    const float horizontal = (tile[ty + 1][tx] + tile[ty + 1][tx + 2] - 2.0f * t) * rx_inv;
    const float vertical = (tile[ty][tx + 1] + tile[ty + 2][tx + 1] - 2.0f * t) * ry_inv;
    const float to_ambient = (ambient - t) * rz_inv;
    temp_dst[row * cols + col] = t + cap_inv * (power[row * cols + col] + horizontal + vertical + to_ambient);
  }
}
