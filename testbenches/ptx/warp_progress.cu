// Warps of one CTA that wait on each other without a barrier: a flag handoff through global memory, a spin
// lock around a counter, and a livelock. The functional runner has to switch warps for the first two to
// finish (testbenches/unit/test_warp_progress.cpp).
//   nvcc -ptx -arch=sm_75 -O3 -lineinfo -fmad=false warp_progress.cu -o warp_progress.ptx

// Warp `setter` computes a table, then raises a flag in global memory (zero at launch); warp 1 - setter
// spins on the flag, then reads the table.
__global__ void flag_handoff(volatile int* ready, int* out, int setter) {
  __shared__ int table[32];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (warp == setter) {
    int sum = 0;
#pragma unroll 1
    for (int i = 0; i <= lane; ++i) sum += i * i;
    table[lane] = sum;
    __threadfence_block();
    if (lane == 0) *ready = 1;
  } else {
    while (*ready == 0) {
    }
    out[lane] = table[31 - lane] + 1;
  }
}

// Lane 0 of every warp takes the lock `iterations` times and bumps the counter in three steps.
__global__ void locked_counter(int* lock, volatile int* counter, int iterations) {
  if (threadIdx.x % 32 != 0) return;
  for (int i = 0; i < iterations; ++i) {
    while (atomicCAS(lock, 0, 1) != 0) {
    }
    __threadfence();
#pragma unroll 1
    for (int step = 0; step < 3; ++step) *counter = *counter + 1;
    __threadfence();
    atomicExch(lock, 0);
  }
}

// Warp 1 waits for a flag nobody sets; warp 2 waits at a barrier warp 1 never reaches; warp 0 finishes.
__global__ void spin_forever(volatile int* flag, int* out) {
  const int warp = threadIdx.x / 32;
  if (warp == 1) {
    while (*flag == 0) {
    }
  }
  if (warp == 2) __syncthreads();
  out[threadIdx.x] = warp;
}
