#include <cuda_fp16.h>
#include <cuda_bf16.h>
__device__ int flag;
__global__ void syncs(int* out, const float4* in4, const float* __restrict__ ro, double* dd) {
  int c = __syncthreads_count(threadIdx.x & 1);
  int a = __syncthreads_and(threadIdx.x < 100);
  int o = __syncthreads_or(threadIdx.x == 3);
  __threadfence(); __threadfence_block(); __threadfence_system();
  float4 v = in4[threadIdx.x];
  float r = __ldg(ro + threadIdx.x);
  volatile int* vf = &flag;
  *vf = 1;
  long long t = clock64();
  unsigned lane; asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  unsigned lm; asm volatile("mov.u32 %0, %%lanemask_lt;" : "=r"(lm));
  out[threadIdx.x] = c + a + o + (int)(v.x + v.y + v.z + v.w + r) + (int)t + lane + lm + clock();
  dd[threadIdx.x] = dd[threadIdx.x] / dd[threadIdx.x + 1] + (double)(long long)out[1] / 3.0;
  __shared__ unsigned long long sh[32];
  sh[threadIdx.x] = t;
  atomicAdd(&sh[0], 1ull);
  atomicCAS(&sh[1], 0ull, 2ull);
  atomicMax((int*)&sh[2], 5);
  __syncwarp();
  out[threadIdx.x + 64] = (int)sh[(threadIdx.x + 1) & 31];
}
__global__ void halves(__half2* h, __nv_bfloat16* b, float* f, double* d, int* i) {
  __half2 x = h[threadIdx.x];
  __half2 y = __hmul2(x, x);
  h[threadIdx.x] = __hadd2(y, x);
  float bf = __bfloat162float(b[threadIdx.x]);
  b[threadIdx.x] = __float2bfloat16(bf * 3.f);
  f[threadIdx.x] = __half2float(__float2half_rz(f[threadIdx.x])) + (float)d[threadIdx.x];
  d[threadIdx.x] = (double)f[threadIdx.x + 1] + (double)i[0];
  i[threadIdx.x] = __float2int_rz(f[2]) + __float2int_rn(f[3]) + __float2uint_rd(f[4]) + __double2int_ru(d[5]) + (int)__double2ll_rz(d[6]) + __float_as_int(f[7]);
  __half hh = __float2half(f[8]);
  i[threadIdx.x + 32] = __half2int_rn(hh);
  h[threadIdx.x+64] = __floats2half2_rn(f[9], f[10]);
}
__global__ void loops(int* out, int n) {
  int s = 0;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    if (i % 3 == threadIdx.x % 3) s += i; else s ^= i;
    if (s > 1000) break;
  }
  out[threadIdx.x] = s;
  if (threadIdx.x == 0) __trap();
}
__global__ void sel(float* f, int* p, unsigned long long* q) {
  float x = f[threadIdx.x];
  p[0] = isnan(x) + isinf(x) + isfinite(x) + signbit(x);
  f[1] = fmaxf(x, f[2]) + fabsf(x) + floorf(x) + ceilf(x) + truncf(x) + roundf(x) + rintf(x) + exp2f(x) + log2f(x) + __powf(x, 2.5f);
  q[0] = __brevll(q[1]) + __umul64hi(q[2], q[3]) + (q[4] >> (p[3] & 63)) + __funnelshift_r(p[4], p[5], p[6]);
  p[5] = __byte_perm(p[6], p[7], 0x4321);
  p[6] = __float_as_uint(__int_as_float(p[8]) * 2.0f) + __sad(p[1], p[2], 3);
  q[5] = __double_as_longlong(__longlong_as_double(q[6]) * 3.0);
  p[7] = (p[1] & 0xFF00) | ((p[2] >> 5) & 7) | (p[3] << 7 >> 9);

}
