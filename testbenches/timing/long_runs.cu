// Kernels for the long-run and livelock tests (testbenches/timing/test_timing_livelock.cpp; docs/reliability.md,
// "Long runs and endless runs").
//
// atomic_flood: every thread adds 1 to one word `per_thread` times; 125 CTAs x 250 threads x 32 is the
// 10^6-atomic flood (9 cycles each at the L2: about 9 M cycles), which must finish at the default settings.
extern "C" __global__ void atomic_flood(unsigned int* count, int per_thread) {
#pragma unroll 1
  for (int i = 0; i < per_thread; ++i) atomicAdd(count, 1u);
}

// late_flag: warp 0 of CTA 0 computes for `iters` dependent steps (registers only, no store) and then sets a
// flag; every other warp of the grid spins on the flag meanwhile, then writes what it read. A long, correct
// kernel: the spinners wait for a warp that makes progress, so no livelock may be reported.
extern "C" __global__ void late_flag(volatile int* flag, unsigned int* out, unsigned int iters) {
  const unsigned int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < 32) {
    unsigned int h = tid + 1u;
#pragma unroll 1
    for (unsigned int i = 0; i < iters; ++i) h = h * 1664525u + 1013904223u;
    out[tid] = h;
    __threadfence();
    if (tid == 0) *flag = 1;
  } else {
    while (*flag == 0) {
    }
    out[tid] = 1u;
  }
}
