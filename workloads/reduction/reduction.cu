// Sum reduction with interleaved addressing: the active threads at each level are those whose
// index is a multiple of 2*stride, so warps diverge at every level (the classic slow variant).
// blockDim.x must be a power of two; shared_bytes = 4 * blockDim.x.

extern "C" __global__ void reduce_interleaved(const float* input, float* block_sums) {
  extern __shared__ float partial[];
  const unsigned tid = threadIdx.x;
  partial[tid] = input[blockIdx.x * blockDim.x + tid];
  __syncthreads();
  for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
    if (tid % (2 * stride) == 0) partial[tid] += partial[tid + stride];
    __syncthreads();
  }
  if (tid == 0) block_sums[blockIdx.x] = partial[0];
}
