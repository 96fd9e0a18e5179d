// How CUDA-samples host code talks to kernels: a namespaced reduce6<T, blockSize, nIsPow2> launched without
// its namespace, narrow by-value parameters (char, short, bool, enum class, double, float4, long long), a
// struct __constant__ filled byte by byte, float2/double constants, __device__ variables with initialisers
// (nvcc drops trailing zero bytes of d_init) and a kernel without parameters.
#include <cstdint>
struct SimParams {
  float3 gravity;
  float damping;
  int count;
  unsigned long long seed;
};
__constant__ SimParams c_params;
__constant__ float2 c_pairs[4];
__constant__ double c_scale;
__device__ int d_counter = 5;
__device__ int d_init[4] = {10, 20, 30, 40};
__device__ float d_vec[3] = {1.5f, 2.5f, 3.5f};

namespace demo {
template <typename T, unsigned int blockSize, bool nIsPow2>
__global__ void reduce6(const T* g_idata, T* g_odata, unsigned int n) {
  T s = 0;
  for (unsigned int i = threadIdx.x; i < n; i += blockSize) s += g_idata[i];
  if (nIsPow2) s *= 2;
  atomicAdd(g_odata, s);
}
template __global__ void reduce6<float, 256u, true>(const float*, float*, unsigned);
template __global__ void reduce6<float, 256u, false>(const float*, float*, unsigned);
template __global__ void reduce6<int, 128u, true>(const int*, int*, unsigned);
}  // namespace demo

enum class Mode : uint8_t { add = 1, mul = 2 };

__global__ void small_params(float* out, char c, short s, bool flag, unsigned char uc, Mode m, double d,
                             float4 v, long long ll) {
  if (threadIdx.x == 0) {
    out[0] = c;
    out[1] = s;
    out[2] = flag ? 1.f : 0.f;
    out[3] = uc;
    out[4] = float(m);
    out[5] = float(d);
    out[6] = v.x + v.y * 10 + v.z * 100 + v.w * 1000;
    out[7] = float(ll);
  }
}

__global__ void use_constants(float* out) {
  if (threadIdx.x == 0) {
    out[0] = c_params.gravity.x;
    out[1] = c_params.gravity.y;
    out[2] = c_params.gravity.z;
    out[3] = c_params.damping;
    out[4] = c_params.count;
    out[5] = float(c_params.seed);
    for (int k = 0; k < 4; ++k) {
      out[6 + 2 * k] = c_pairs[k].x;
      out[7 + 2 * k] = c_pairs[k].y;
    }
    out[14] = float(c_scale);
    out[15] = atomicAdd(&d_counter, 1);
    for (int k = 0; k < 4; ++k) out[16 + k] = d_init[k];
    for (int k = 0; k < 3; ++k) out[20 + k] = d_vec[k];
  }
}

__global__ void no_params() {
  if (threadIdx.x == 0) d_counter += 100;
}
