// Small kernels for the launch-file fuzzer's hand-made seeds (testbenches/fuzz/seeds/launch): every kind of
// parameter the launch format has (pointers, integers, floats, a struct, an offset pointer), shared memory,
// __device__ and __constant__ variables, a device-function call and a host-loop flag. Compiled with
//   nvcc -ptx -arch=sm_75 -O3 -lineinfo -fmad=false fuzz_kernels.cu -o fuzz_kernels.ptx
#include <cstdint>

__constant__ float scale_table[4];
__device__ unsigned int done_flag;
__device__ int histogram_bins[16];

struct Window {
  int offset;
  int length;
  float weight;
};

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void scale_u16(const unsigned short* in, unsigned int* out, unsigned long long n, double factor) {
  unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (i < n) out[i] = (unsigned int)(in[i] * factor * scale_table[i & 3]);
}

__global__ void windowed_sum(const int* data, int* sums, Window w) {
  int sum = 0;
  for (int k = 0; k < w.length; ++k) sum += data[w.offset + k];
  sums[blockIdx.x] = (int)(sum * w.weight);
}

__global__ void block_reduce(const float* in, float* block_sums, int n) {
  extern __shared__ float partial[];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  partial[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) partial[tid] += partial[tid + s];
    __syncthreads();
  }
  if (tid == 0) block_sums[blockIdx.x] = partial[0];
}

__device__ __noinline__ int bin_of(int value) { return (value >> 2) & 15; }

__global__ void histogram16(const int* values, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&histogram_bins[bin_of(values[i])], 1);
}

// One relaxation step of a host loop `until: {symbol: done_flag, equals: 1}`.
__global__ void relax(int* values, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (values[i] > 0) {
    values[i] -= 1;
  } else if (i == 0) {
    done_flag = 1;
  }
}
