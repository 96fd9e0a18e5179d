// Bitonic sort in shared memory: each CTA sorts its own chunk of blockDim.x keys ascending.
// Divergence: only threads whose partner index is larger do the compare-exchange, and the
// swap itself depends on the data.

constexpr unsigned kMaxChunk = 1024;

extern "C" __global__ void bitonic_sort(unsigned* keys) {
  __shared__ unsigned chunk[kMaxChunk];
  const unsigned tid = threadIdx.x;
  const unsigned n = blockDim.x;  // a power of two, at most kMaxChunk
  unsigned* block_keys = keys + blockIdx.x * n;
  chunk[tid] = block_keys[tid];
  __syncthreads();
  for (unsigned size = 2; size <= n; size <<= 1) {
    for (unsigned stride = size >> 1; stride > 0; stride >>= 1) {
      const unsigned partner = tid ^ stride;
      if (partner > tid) {
        const bool ascending = (tid & size) == 0;
        const unsigned a = chunk[tid];
        const unsigned b = chunk[partner];
        if ((a > b) == ascending) {
          chunk[tid] = b;
          chunk[partner] = a;
        }
      }
      __syncthreads();
    }
  }
  block_keys[tid] = chunk[tid];
}
