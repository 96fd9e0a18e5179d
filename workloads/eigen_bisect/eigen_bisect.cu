// Eigenvalues of symmetric tridiagonal matrices by bisection on Sturm counts, one thread per eigenvalue.
// Matrix m occupies elements m * stride .. m * stride + n_m - 1 of `diagonal` and `coupling` (coupling[i]
// joins rows i and i + 1). The matrices are interleaved over the threads, as a solver batching many small
// problems would: thread t works on matrix t % matrix_count and finds its (k+1)-th smallest eigenvalue,
// k = t / matrix_count, from the matrix's Gershgorin interval, halved until it is narrower than
// abs_tol + rel_tol * max(|lo|, |hi|).
// Where lanes part: lanes whose k is past their matrix's size leave at once; the Sturm recurrence runs over
// each lane's own matrix size and stops as soon as more than k pivots were negative (that decides the
// halving); the number of halvings depends on the matrix's interval and on the eigenvalue (more near zero).

constexpr float kPivotMin = 1e-30f;  // a zero pivot is nudged negative so the recurrence can go on

// Whether more than k eigenvalues lie below x: the number of negative pivots of the LDL^T factorisation of
// T - xI equals the number of eigenvalues below x, and it only grows along the rows. Both exits leave the
// loop at one place, so lanes that stop early wait there instead of splitting the warp for the rest of the
// rows.
__device__ bool more_than_k_below(const float* diagonal, const float* coupling, int n, float x, int k) {
  int negative = 0;
  float pivot = diagonal[0] - x;
  for (int i = 1;; ++i) {
    if (pivot < kPivotMin && pivot > -kPivotMin) pivot = -kPivotMin;
    if (pivot < 0.0f) ++negative;
    if (negative > k || i == n) break;
    pivot = (diagonal[i] - x) - coupling[i - 1] * coupling[i - 1] / pivot;
  }
  return negative > k;
}

extern "C" __global__ void eigen_bisect(const float* diagonal, const float* coupling, const int* sizes,
                                        int matrix_count, int stride, float abs_tol, float rel_tol,
                                        int max_iterations, float* eigenvalues, int* iterations) {
  const int thread = blockIdx.x * blockDim.x + threadIdx.x;
  const int matrix = thread % matrix_count, k = thread / matrix_count;
  const int n = sizes[matrix];
  if (k >= min(n, stride)) return;
  const float* a = diagonal + matrix * stride;
  const float* e = coupling + matrix * stride;

  float lo = a[0], hi = a[0];
  for (int i = 0; i < n; ++i) {
    float radius = 0.0f;
    if (i > 0) radius = radius + fabsf(e[i - 1]);
    if (i < n - 1) radius = radius + fabsf(e[i]);
    lo = fminf(lo, a[i] - radius);
    hi = fmaxf(hi, a[i] + radius);
  }
  int iteration = 0;
  while (iteration < max_iterations && hi - lo > abs_tol + rel_tol * fmaxf(fabsf(lo), fabsf(hi))) {
    const float middle = 0.5f * (lo + hi);
    if (more_than_k_below(a, e, n, middle, k)) {
      hi = middle;
    } else {
      lo = middle;
    }
    ++iteration;
  }
  eigenvalues[matrix * stride + k] = 0.5f * (lo + hi);
  iterations[matrix * stride + k] = iteration;
}
