// Single-loop divergence microbenchmark (divergence-cost paper, Table I patterns): one warp; with
// pattern n the last n lanes run 31, 30, ..., 32-n iterations and the others 32. The sum is
// stored so the loop is not optimized away; unroll 1 keeps one loop body as in the paper.

__device__ int trip_count(unsigned lane, int n) {
  const int first_divergent = 32 - n;
  return static_cast<int>(lane) < first_divergent ? 32 : 32 - (static_cast<int>(lane) - first_divergent + 1);
}

extern "C" __global__ void single_loop(float* out, int n) {
  const int tid = blockDim.x * blockIdx.x + threadIdx.x;
  const int trips = trip_count(threadIdx.x % 32, n);
  float sum = out[tid];
#pragma unroll 1
  for (int i = 0; i < trips; ++i) sum += 1.3333f;
  out[tid] = sum;
}
