// Two kernels of one module, each staging a different 16 KiB shared array: each kernel is charged its own
// 16 KiB, not the module's 32 KiB (testbenches/unit/test_ptx_shared_layout.cpp, testbenches/timing/).
#define WORDS 4096  // 16 KiB of unsigned

// out[i] = in[(i + shift) % WORDS] for one CTA-sized slice, staged through shared memory.
extern "C" __global__ void rotate_words(const unsigned* __restrict__ in, unsigned* out, unsigned shift) {
  __shared__ unsigned stage[WORDS];
  for (unsigned i = threadIdx.x; i < WORDS; i += blockDim.x) stage[i] = in[blockIdx.x * WORDS + i];
  __syncthreads();
  for (unsigned i = threadIdx.x; i < WORDS; i += blockDim.x)
    out[blockIdx.x * WORDS + i] = stage[(i + shift) % WORDS];
}

// out[i] = in[WORDS - 1 - i] * 2 + 1 through its own 16 KiB array.
extern "C" __global__ void reverse_words(const unsigned* __restrict__ in, unsigned* out) {
  __shared__ unsigned mirror[WORDS];
  for (unsigned i = threadIdx.x; i < WORDS; i += blockDim.x) mirror[i] = in[blockIdx.x * WORDS + i];
  __syncthreads();
  for (unsigned i = threadIdx.x; i < WORDS; i += blockDim.x)
    out[blockIdx.x * WORDS + i] = mirror[WORDS - 1 - i] * 2 + 1;
}

// A file-scope shared array that only device functions touch: the kernel calling them is charged for it,
// the kernels above are not.
__shared__ unsigned histogram_bins[1024];

__device__ __noinline__ void clear_bins() {
  for (unsigned i = threadIdx.x; i < 1024; i += blockDim.x) histogram_bins[i] = 0;
}

__device__ __noinline__ void count_into_bins(unsigned value) {
  atomicAdd(&histogram_bins[value % 1024], 1u);
}

__device__ __noinline__ unsigned read_bin(unsigned bin) {
  return histogram_bins[bin];
}

extern "C" __global__ void histogram(const unsigned* __restrict__ in, unsigned* out, unsigned n) {
  clear_bins();
  __syncthreads();
  for (unsigned i = threadIdx.x; i < n; i += blockDim.x) count_into_bins(in[i]);
  __syncthreads();
  for (unsigned i = threadIdx.x; i < 1024; i += blockDim.x) out[i] = read_bin(i);
}
