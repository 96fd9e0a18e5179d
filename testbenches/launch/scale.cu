// Fixture kernel for the launch tests: out[i] = in[i] * k + bias[0] for i < n.
// scale.ptx was generated with: nvcc -ptx -arch=sm_75 -O3 -fmad=false -o scale.ptx scale.cu
__constant__ float bias[1] = {0.5f};

extern "C" __global__ void scale(float* out, const float* in, unsigned n, float k) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * k + bias[0];
}

__global__ void fill(unsigned char* out, short value, long long count) {
  long long i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i] = (unsigned char)value;
}
