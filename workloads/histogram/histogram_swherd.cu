// histogram256 (histogram.cu) with software branch herding (branch-data-herding paper, Fig. 9): the
// data-dependent branch on the CTA's sub-histogram ("this bin is nonzero, add it to the global bins")
// follows the strict majority of the warp. Where most of a warp's 32 bins are empty, the few nonzero
// ones are dropped, so rare bins are undercounted; where most are nonzero, empty bins add 0.

constexpr int kBins = 256;  // blockDim.x must equal kBins

__device__ bool herd(bool condition) {
  const unsigned lanes = __activemask();
  return 2 * __popc(__ballot_sync(lanes, condition)) > __popc(lanes);
}

extern "C" __global__ void histogram256_swherd(const unsigned char* data, unsigned count, unsigned* bins) {
  __shared__ unsigned block_bins[kBins];
  const unsigned tid = threadIdx.x;
  block_bins[tid] = 0;
  __syncthreads();
  for (unsigned i = blockIdx.x * blockDim.x + tid; i < count; i += gridDim.x * blockDim.x) {
    atomicAdd(&block_bins[data[i]], 1u);
  }
  __syncthreads();
  if (herd(block_bins[tid] != 0)) atomicAdd(&bins[tid], block_bins[tid]);
}
