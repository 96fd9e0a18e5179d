// Double-loop divergence microbenchmark (divergence-cost paper): the outer bound M of a lane follows
// Table I pattern n_outer and the inner bound N pattern n_inner (the paper uses n_outer = n_inner).
// They are separate parameters, as the paper loads M and N separately, so the compiler cannot
// merge the two bounds and drop the inner loop's own entry test. One body per loop (unroll 1).

__device__ int trip_count(unsigned lane, int n) {
  const int first_divergent = 32 - n;
  return static_cast<int>(lane) < first_divergent ? 32 : 32 - (static_cast<int>(lane) - first_divergent + 1);
}

extern "C" __global__ void double_loop(float* out, int n_outer, int n_inner) {
  const int tid = blockDim.x * blockIdx.x + threadIdx.x;
  const int outer_trips = trip_count(threadIdx.x % 32, n_outer);
  const int inner_trips = trip_count(threadIdx.x % 32, n_inner);
  float sum = out[tid];
#pragma unroll 1
  for (int i = 0; i < outer_trips; ++i) {
#pragma unroll 1
    for (int j = 0; j < inner_trips; ++j) sum += 1.3333f;
    sum += 2.3333f;
  }
  out[tid] = sum;
}
