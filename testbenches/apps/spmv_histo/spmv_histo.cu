// A Parboil-like pair: sparse matrix-vector product over a CSR matrix passed as a struct of arrays, and a
// histogram with per-CTA shared bins merged by global atomics. A value's bin is found by a recursive,
// non-inlined binary search over the bin edges.
struct CsrMatrix {
  const int* row_offsets;
  const int* columns;
  const float* values;
  int rows;
};

__device__ __noinline__ float row_dot(const CsrMatrix& m, const float* x, int row) {
  float sum = 0.0f;
  for (int j = m.row_offsets[row]; j < m.row_offsets[row + 1]; ++j) sum += m.values[j] * x[m.columns[j]];
  return sum;
}

__global__ void spmv_csr(CsrMatrix m, const float* x, float* y) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m.rows) y[row] = row_dot(m, x, row);
}

// The bin b with edges[b] <= v < edges[b + 1], searched in [lo, hi).
__device__ __noinline__ int find_bin(const unsigned* edges, unsigned v, int lo, int hi) {
  if (hi - lo <= 1) return lo;
  const int mid = (lo + hi) / 2;
  return v < edges[mid] ? find_bin(edges, v, lo, mid) : find_bin(edges, v, mid, hi);
}

__global__ void histogram(const unsigned* data, int n, const unsigned* edges, int bins, unsigned* histo) {
  extern __shared__ unsigned local_bins[];
  for (int b = threadIdx.x; b < bins; b += blockDim.x) local_bins[b] = 0;
  __syncthreads();
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += blockDim.x * gridDim.x) {
    const unsigned v = data[k];
    if (v >= edges[0] && v < edges[bins]) atomicAdd(&local_bins[find_bin(edges, v, 0, bins)], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < bins; b += blockDim.x)
    if (local_bins[b]) atomicAdd(&histo[b], local_bins[b]);
}
