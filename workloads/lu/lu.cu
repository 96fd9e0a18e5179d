// Right-looking LU factorisation without pivoting of a row-major n x n matrix, in place (L below the diagonal
// with a unit diagonal left implicit, U on and above it). Each elimination step k is two launches of
// independent tasks: lu_column scales column k below the diagonal (one task per row: column-major, strided
// accesses), then lu_update subtracts the rank-1 product from the trailing block (one task per element:
// row-major). A launch never writes what another task of it reads, so there are no races.

// Adds `shift` to the diagonal so the matrix is diagonally dominant and needs no pivoting.
extern "C" __global__ void lu_make_dominant(float* a, int n, float shift) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= n * n) return;
  const int row = p / n;
  if (p - row * n == row) a[p] = a[p] + shift;
}

// l[i][k] = a[i][k] / a[k][k] for i > k.
extern "C" __global__ void lu_column(float* a, int n, int k) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n - 1 - k) return;
  const int i = k + 1 + t;
  a[i * n + k] = a[i * n + k] / a[k * n + k];
}

// a[i][j] -= l[i][k] * u[k][j] for i, j > k; task t covers row k + 1 + t / m, column k + 1 + t % m.
extern "C" __global__ void lu_update(float* a, int n, int k) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int m = n - 1 - k;
  if (t >= m * m) return;
  const int i = k + 1 + t / m;
  const int j = k + 1 + t % m;
  a[i * n + j] = a[i * n + j] - a[i * n + k] * a[k * n + j];
}
