#include <cstdio>
#include <cassert>
#include <cuda_fp16.h>
__constant__ int ctab[4] = {1,2,3,4};
__device__ float gvals[3] = {1.5f, 2.0f, -3.0f};
__device__ double gd = 2.5;
__global__ void hello(int* out, int n) {
  printf("hi %d %f\n", threadIdx.x, 1.0);
  assert(n > 0);
  out[threadIdx.x] = n + ctab[threadIdx.x & 3];
}
__global__ void reduce(const float* in, float* out, int n) {
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.f;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, s[0]);
}
extern __shared__ int dyn[];
__global__ void ext(int* out, int n) {
  extern __shared__ float dynf[];
  dyn[threadIdx.x] = threadIdx.x;
  dynf[threadIdx.x+1] += 1.0f;
  __syncthreads();
  out[threadIdx.x] = dyn[(threadIdx.x + 1) % blockDim.x];
}
__global__ void local(int* out, int n) {
  int a[10];
  for (int i = 0; i < 10; ++i) a[i] = i * n;
  out[threadIdx.x] = a[n % 10];
}
__global__ void atom(int* p, unsigned* u, unsigned long long* q, float* f) {
  atomicAdd(p, 1); atomicMin(p+1, threadIdx.x); atomicMax(p+2, threadIdx.x);
  atomicInc(u, 100); atomicDec(u+1, 100); atomicCAS(p+3, 0, 1); atomicExch(p+4, 5);
  atomicAnd(p+5, 3); atomicOr(p+6, 3); int old = atomicXor(p+7, 3);
  atomicAdd(q, 1ull); atomicAdd(f, 1.0f);
  p[8+threadIdx.x] = old;
}
__global__ void warp(int* out, float v) {
  unsigned b = __ballot_sync(0xffffffff, threadIdx.x & 1);
  int any = __any_sync(0xffffffff, threadIdx.x > 3);
  int all = __all_sync(0xffffffff, threadIdx.x < 40);
  float x = __shfl_sync(0xffffffff, v, 3);
  x += __shfl_up_sync(0xffffffff, x, 1);
  x += __shfl_down_sync(0xffffffff, x, 2);
  x += __shfl_xor_sync(0xffffffff, x, 4);
  unsigned m = __activemask();
  __syncwarp();
  out[threadIdx.x] = b + any + all + (int)x + m + __popc(b) + __clz(b) + __brev(b) + __ffs(b);
}
__global__ void dmath(double* d, float* f, int n) {
  double x = d[threadIdx.x];
  d[threadIdx.x] = sqrt(x) + exp(x) + log(x) + x / n + fma(x, x, 1.0) + (double)(long long)x;
  float y = f[threadIdx.x];
  f[threadIdx.x] = __fdividef(y, 3.f) + sqrtf(y) + rsqrtf(y) + __sinf(y) + __cosf(y) + __expf(y) + __logf(y) + y / n + tanhf(y) + fminf(y, 2.f) + copysignf(y, -1.f) + (float)(unsigned)y + __saturatef(y);
}
__global__ void halfk(__half* h, float* f, __nv_bfloat16* b) {
  __half a = h[threadIdx.x];
  float x = __half2float(a);
  f[threadIdx.x] = x * 2.f;
  h[threadIdx.x] = __float2half(x + 1.f);
  __half2 p = __halves2half2(a, a);
  h[threadIdx.x+32] = __low2half(p) ;
}
__global__ void bits(unsigned* o, unsigned a, unsigned b, long long c) {
  o[0] = __byte_perm(a, b, 0x3210);
  o[1] = __funnelshift_l(a, b, 3);
  o[2] = __funnelshift_rc(a, b, a);
  o[3] = (a >> 3) & 0x1f;
  o[4] = __umulhi(a, b) + __mul24(a, b) + __sad(a, b, 1);
  o[5] = (unsigned)(c / (long long)a) + (unsigned)(c % 7);
  o[6] = __clzll(c) + __popcll(c) + __ffsll(c);
  o[7] = a / b + a % b;
  o[8] = (int)a / (int)b;

  o[10] = min(a, b) + max((int)a, (int)b) + abs((int)b);
}
