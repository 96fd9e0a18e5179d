// Lattice-Boltzmann D3Q19 stream-and-collide on a periodic nx x ny x nz box, one thread per cell,
// distributions stored direction-major (f[i * cells + cell]). A cell is an obstacle when its noise byte
// is below obstacle_percent. The divergent branch is the one the Parboil lbm kernel has: an obstacle cell
// bounces every distribution back to the cell it came from (reversed direction), a fluid cell does a
// BGK collision (density, velocity, equilibrium, relaxation by omega) and pushes the results to its 18
// neighbours. Every destination slot is written by exactly one cell either way.

constexpr int kDirections = 19;

__device__ int wrap(int v, int n) {
  return v < 0 ? v + n : (v >= n ? v - n : v);
}

extern "C" __global__ void lbm_stream_collide(const float* source, float* destination,
                                              const unsigned char* cell_noise, int obstacle_percent,
                                              float omega, int nx, int ny, int nz) {
  constexpr int cx[kDirections] = {0, 1, -1, 0, 0, 0, 0, 1, -1, 1, -1, 1, -1, 1, -1, 0, 0, 0, 0};
  constexpr int cy[kDirections] = {0, 0, 0, 1, -1, 0, 0, 1, 1, -1, -1, 0, 0, 0, 0, 1, -1, 1, -1};
  constexpr int cz[kDirections] = {0, 0, 0, 0, 0, 1, -1, 0, 0, 0, 0, 1, 1, -1, -1, 1, 1, -1, -1};
  constexpr int opposite[kDirections] = {0, 2, 1, 4, 3, 6, 5, 10, 9, 8, 7, 14, 13, 12, 11, 18, 17, 16, 15};
  const int cells = nx * ny * nz;
  const int cell = blockIdx.x * blockDim.x + threadIdx.x;
  if (cell >= cells) return;
  const int x = cell % nx, y = (cell / nx) % ny, z = cell / (nx * ny);
  auto neighbour = [&](int dx, int dy, int dz) {
    return (wrap(z + dz, nz) * ny + wrap(y + dy, ny)) * nx + wrap(x + dx, nx);
  };
  float f[kDirections];
#pragma unroll
  for (int i = 0; i < kDirections; ++i) f[i] = source[i * cells + cell];

  if (cell_noise[cell] < obstacle_percent) {
#pragma unroll
    for (int i = 0; i < kDirections; ++i) {
      destination[opposite[i] * cells + neighbour(-cx[i], -cy[i], -cz[i])] = f[i];
    }
  } else {
    float rho = 0.0f, mx = 0.0f, my = 0.0f, mz = 0.0f;
#pragma unroll
    for (int i = 0; i < kDirections; ++i) {
      rho += f[i];
      mx += cx[i] * f[i];
      my += cy[i] * f[i];
      mz += cz[i] * f[i];
    }
    const float ux = mx / rho, uy = my / rho, uz = mz / rho;
    const float u_squared = ux * ux + uy * uy + uz * uz;
#pragma unroll
    for (int i = 0; i < kDirections; ++i) {
      const float weight = i == 0 ? 1.0f / 3.0f : (i < 7 ? 1.0f / 18.0f : 1.0f / 36.0f);
      const float eu = cx[i] * ux + cy[i] * uy + cz[i] * uz;
      const float equilibrium = weight * rho * (1.0f + 3.0f * eu + 4.5f * eu * eu - 1.5f * u_squared);
      destination[i * cells + neighbour(cx[i], cy[i], cz[i])] = f[i] + omega * (equilibrium - f[i]);
    }
  }
}
