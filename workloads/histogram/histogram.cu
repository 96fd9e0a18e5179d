// 256-bin histogram of bytes: per-CTA bins in shared memory (atomicAdd), then merged into the
// global bins with one atomicAdd per nonzero bin. The merge test is data dependent.

constexpr int kBins = 256;  // blockDim.x must equal kBins

extern "C" __global__ void histogram256(const unsigned char* data, unsigned count, unsigned* bins) {
  __shared__ unsigned block_bins[kBins];
  const unsigned tid = threadIdx.x;
  block_bins[tid] = 0;
  __syncthreads();
  for (unsigned i = blockIdx.x * blockDim.x + tid; i < count; i += gridDim.x * blockDim.x) {
    atomicAdd(&block_bins[data[i]], 1u);
  }
  __syncthreads();
  if (block_bins[tid] != 0) atomicAdd(&bins[tid], block_bins[tid]);
}
