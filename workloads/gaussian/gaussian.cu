// Gaussian elimination without pivoting, after the shape of Rodinia's gaussian: for every pivot row t the
// host launches two kernels, Fan1 (one thread per row below t: the multiplier m[i][t] = a[i][t] / a[t][t])
// and Fan2 (a 2-D grid over the trailing matrix: a[i][j] -= m[i][t] * a[t][j], and b for column 0).
// make_dominant adds a constant to the diagonal first, so no pivot is small.

extern "C" __global__ void make_dominant(float* a, int n, float shift) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i * n + i] += shift;
}

extern "C" __global__ void Fan1(float* m, const float* a, int n, int t) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n - 1 - t) return;
  m[n * (row + t + 1) + t] = a[n * (row + t + 1) + t] / a[n * t + t];
}

extern "C" __global__ void Fan2(const float* m, float* a, float* b, int n, int t) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;  // row below the pivot
  const int y = blockIdx.y * blockDim.y + threadIdx.y;  // column from the pivot on
  if (x >= n - 1 - t || y >= n - t) return;
  const float multiplier = m[n * (x + 1 + t) + t];
  a[n * (x + 1 + t) + (y + t)] -= multiplier * a[n * t + (y + t)];
  if (y == 0) b[x + 1 + t] -= multiplier * b[t];
}
