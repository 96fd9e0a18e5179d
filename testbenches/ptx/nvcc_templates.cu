#include <cstdio>
namespace ns {
template <typename T> __global__ void scale(T* x, T a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
  if (i == 0) printf("n=%d a=%f ll=%lld\n", n, (double)a, (long long)n * 3);
}
template __global__ void scale<float>(float*, float, int);
template __global__ void scale<double>(double*, double, int);
}
__global__ void matmul(const float* A, const float* B, float* C, int N) {
  __shared__ float As[16][16], Bs[16][16];
  int r = blockIdx.y * 16 + threadIdx.y, c = blockIdx.x * 16 + threadIdx.x;
  float acc = 0;
  for (int t = 0; t < N / 16; ++t) {
    As[threadIdx.y][threadIdx.x] = A[r * N + t * 16 + threadIdx.x];
    Bs[threadIdx.y][threadIdx.x] = B[(t * 16 + threadIdx.y) * N + c];
    __syncthreads();
    for (int k = 0; k < 16; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  C[r * N + c] = acc;
}
struct Big { int a[4]; double d; };
__global__ void bystruct(Big b, int* out) { out[threadIdx.x] = b.a[threadIdx.x & 3] + (int)b.d; }
