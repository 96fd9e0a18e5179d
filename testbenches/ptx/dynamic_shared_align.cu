// Dynamic shared memory after a small static array: the .extern .shared window starts at the largest
// alignment its declarations ask for, and the CTA's allocation includes the padding in front of it.
struct __align__(64) Line {
  double values[8];
};

// Each CTA stages n doubles (n = blockDim.x) in dynamic shared memory, reversed, next to a 3-byte static
// flag array; out gets the staged values and, per CTA, the window's shared address.
extern "C" __global__ void stage_reversed(const double* __restrict__ in, double* out, unsigned* window) {
  __shared__ unsigned char flags[3];
  extern __shared__ Line lines[];
  extern __shared__ double staged[];  // aliases lines
  const unsigned tid = threadIdx.x;
  const unsigned n = blockDim.x;
  if (tid < 3) flags[tid] = static_cast<unsigned char>(tid + 1);
  staged[n - 1 - tid] = in[blockIdx.x * n + tid];
  __syncthreads();
  out[blockIdx.x * n + tid] = staged[tid] + flags[tid % 3];
  if (tid == 0) window[blockIdx.x] = static_cast<unsigned>(__cvta_generic_to_shared(&lines[0]));
}
