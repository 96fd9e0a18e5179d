// One explicit time step of a HotSpot-like thermal model on a rows x cols grid: each cell's temperature moves
// by step/capacitance times (its power + conductance-weighted Laplacian + leak to the ambient). One task per
// cell, reading the previous temperatures and writing the next buffer (the launch sequence ping-pongs two
// buffers). Cells on the grid's edge take their own temperature for the missing neighbours, on a separate
// path.
extern "C" __global__ void hotspot_step(const float* temp_in, float* temp_out, const float* power, int rows,
                                        int cols, float step_over_cap, float rx_inv, float ry_inv,
                                        float rz_inv, float ambient) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= rows * cols) return;
  const int r = p / cols;
  const int c = p - r * cols;
  const float t = temp_in[p];
  float north, south, west, east;
  if (r > 0 && r < rows - 1 && c > 0 && c < cols - 1) {
    north = temp_in[p - cols];
    south = temp_in[p + cols];
    west = temp_in[p - 1];
    east = temp_in[p + 1];
  } else {
    north = r > 0 ? temp_in[p - cols] : t;
    south = r < rows - 1 ? temp_in[p + cols] : t;
    west = c > 0 ? temp_in[p - 1] : t;
    east = c < cols - 1 ? temp_in[p + 1] : t;
  }
  const float vertical = (north + south - 2.0f * t) * ry_inv;
  const float horizontal = (west + east - 2.0f * t) * rx_inv;
  const float leak = (ambient - t) * rz_inv;
  temp_out[p] = t + step_over_cap * (power[p] + vertical + horizontal + leak);
}
