// Kernels of the launch-sequence tests (testbenches/unit/test_launch_sequence*.cpp), written like the
// host-loop kernels of Rodinia and the CUDA samples.
struct ScaleArgs {
  unsigned n;
  float scale;
  float* data;
  unsigned long long tag;
};

__constant__ float c_weights[4];
__constant__ float c_bias[2];
__device__ int d_rounds;
__device__ float d_table[8];

// data[k] += step * i for every k: one launch per iteration of a host loop.
__global__ void add_step(float* data, int n, int step, int i) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) data[k] += float(step * i);
}

// out[k] = in[k] * c_weights[k % 4] (cudaMemcpyToSymbol before the launch).
__global__ void weigh(float* out, const float* in, int n) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) out[k] = in[k] * c_weights[k & 3];
}

// out[k] = in[k] + c_bias[0]: c_bias is never initialised by the tests' host.
__global__ void add_bias(float* out, const float* in, int n) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) out[k] = in[k] + c_bias[0];
}

// One round of a host `while (more)` loop: counts rounds in a device variable; more = rounds < limit.
__global__ void round_trip(int* more, int* history, int limit) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    const int r = ++d_rounds;
    history[r - 1] = r;
    more[0] = r < limit ? 1 : 0;
  }
}

// d_table[k] = k * factor: read back with cudaMemcpyFromSymbol.
__global__ void fill_table(float factor) {
  const int k = threadIdx.x;
  if (k < 8) d_table[k] = float(k) * factor;
}

// out[k] = d_table[k] + 1: reads a __device__ variable the host wrote.
__global__ void read_table(float* out) {
  const int k = threadIdx.x;
  if (k < 8) out[k] = d_table[k] + 1.0f;
}

// A struct passed by value, as CUDA samples pass parameter blocks.
__global__ void scale_struct(ScaleArgs args, unsigned long long* tag_out) {
  const unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < args.n) args.data[k] *= args.scale;
  if (k == 0) tag_out[0] = args.tag;
}

// flags[0] = 1 when the optional input is present (NULL allowed); out[0] = x.
__global__ void optional_input(const float* maybe, float* out, float x) {
  if (threadIdx.x == 0) {
    out[0] = maybe ? maybe[0] : -1.0f;
    out[1] = x;
  }
}

// A halo kernel that strays: loads window[k - 4] and stores window[k + n] (out of bounds at both ends).
__global__ void halo(float* window, float* out, int n) {
  const int k = threadIdx.x;
  if (k < n) {
    out[k] = window[k - 4];
    window[k + n] = 7.0f;
  }
}

template <int N>
__global__ void fill_n(int* out) {
  if (threadIdx.x < N) out[threadIdx.x] = N;
}

template <unsigned B>
__global__ void block_sum(const int* in, int* out) {
  __shared__ int part[B];
  part[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    int s = 0;
    for (unsigned k = 0; k < B; ++k) s += part[k];
    out[0] = s;
  }
}

template __global__ void fill_n<16>(int*);
template __global__ void fill_n<32>(int*);
template __global__ void block_sum<64u>(const int*, int*);
