// Kernels of the host-loop tests (testbenches/unit/test_launch_hostloops.cpp): a bitonic sort driven by two
// nested host loops, and a launch whose grid comes from a value a kernel left in device memory (as Parboil's
// histo sizes its main kernel from the ranges its prescan found).
__device__ int d_bias = 7;  // a PTX initialiser that a symbols: entry without init replaces with zeros

// One compare-and-swap pass of the bitonic network: host loops k = 2, 4, ..., n and j = k/2, ..., 1.
__global__ void bitonic_step(int* data, int j, int k) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned partner = t ^ unsigned(j);
  if (partner > t) {
    const int a = data[t], b = data[partner];
    const bool ascending = (t & unsigned(k)) == 0;
    if (ascending ? a > b : a < b) {
      data[t] = b;
      data[partner] = a;
    }
  }
}

// bounds[0] = min, bounds[1] = max of values[0..n) (bounds starts as {INT_MAX, INT_MIN}).
__global__ void find_bounds(const int* values, int n, int* bounds) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) {
    atomicMin(&bounds[0], values[t]);
    atomicMax(&bounds[1], values[t]);
  }
}

// One CTA per value in [lo, lo + gridDim.x): counts how many of values[0..n) equal it, plus d_bias.
__global__ void count_each(const int* values, int n, int lo, int* counts) {
  const int v = lo + int(blockIdx.x);
  int c = 0;
  for (int t = threadIdx.x; t < n; t += blockDim.x) c += values[t] == v;
  atomicAdd(&counts[blockIdx.x], c);
  if (threadIdx.x == 0) atomicAdd(&counts[blockIdx.x], d_bias);
}
