// Cooperative kernels for simtlm's tests of cooperative launches (launch files' `cooperative: true`):
// grid-wide barriers through cooperative_groups::this_grid().sync(), which nvcc compiles to an atomic on
// the grid workspace (%envreg1:%envreg2) and a polling loop.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

// Three phases separated by grid barriers: per-CTA sums, one total from CTA 0, then every element scaled by
// the total and shifted by a neighbour from another CTA's strip; then `rounds` ping-pong smoothing steps,
// each ending at a grid barrier. Integer arithmetic wraps, so the host reference is exact.
__global__ void grid_phases(const int* in, int* partial, int* out, int* scratch, int n, int rounds) {
  cg::grid_group grid = cg::this_grid();
  __shared__ int sums[256];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  int mine = 0;
  for (int k = i; k < n; k += gridDim.x * blockDim.x) mine += in[k];
  sums[threadIdx.x] = mine;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) sums[threadIdx.x] += sums[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = sums[0];
  grid.sync();
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    int total = 0;
    for (int b = 0; b < gridDim.x; ++b) total += partial[b];
    partial[gridDim.x] = total;
  }
  grid.sync();
  const int total = partial[gridDim.x];
  for (int k = i; k < n; k += gridDim.x * blockDim.x) out[k] = in[k] * total + in[(k + blockDim.x) % n];
  grid.sync();
  int* src = out;
  int* dst = scratch;
  for (int r = 0; r < rounds; ++r) {
    for (int k = i; k < n; k += gridDim.x * blockDim.x) dst[k] = src[k] - src[(k + n - 1) % n] / 2;
    grid.sync();
    int* t = src;
    src = dst;
    dst = t;
  }
}

// CTA 0 works `delay` iterations before the barrier; every CTA's thread 0 reads the clock just before and
// just after it. No CTA may leave the barrier before the last one reached it.
__global__ void grid_clock(long long* before, long long* after, int* sink, int delay) {
  cg::grid_group grid = cg::this_grid();
  int acc = threadIdx.x;
  if (blockIdx.x == 0)
    for (int k = 0; k < delay; ++k) acc = acc * 1103515245 + 12345;
  sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
  if (threadIdx.x == 0) before[blockIdx.x] = clock64();
  grid.sync();
  if (threadIdx.x == 0) after[blockIdx.x] = clock64();
}

// A defect on purpose: the last CTA returns without reaching the grid barrier the others wait at.
__global__ void grid_missing_cta(int* out) {
  cg::grid_group grid = cg::this_grid();
  if (blockIdx.x == gridDim.x - 1) return;
  out[blockIdx.x] = 1;
  grid.sync();
  out[blockIdx.x] = 2;
}
