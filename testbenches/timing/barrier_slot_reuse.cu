// A CTA warp that exits early frees its slot while its CTA still runs; a later CTA takes that slot and waits at
// its own barrier there. Releasing the first CTA's barrier must not release the later CTA's warp
// (testbenches/timing/test_timing_barrier_reuse.cpp). On one SM with 8 warp slots and 4-warp CTAs:
//   CTA 0: warp 3 returns at once; warps 0-2 spin for `slow` iterations, then meet at the barrier.
//   CTA 1: finishes quickly, so CTA 2 is placed in the slots 3..6 (slot 3 freed by CTA 0's warp 3).
//   CTA 2: warp 2 spins for `slower` iterations before it writes its part of shared memory; warp 0 reads it
//          after the barrier.
extern "C" __global__ void barrier_slot_reuse(unsigned* out, unsigned slow, unsigned slower) {
  __shared__ unsigned tile[128];
  const unsigned t = threadIdx.x;
  if (blockIdx.x == 0 && t >= 96) return;
  unsigned v = t + 1000 * blockIdx.x;
  unsigned spin = blockIdx.x == 0 ? slow : (blockIdx.x == 2 && t >= 64 && t < 96 ? slower : 0);
  for (unsigned i = 0; i < spin; ++i) v = v * 1664525u + 1013904223u;
  tile[t] = v;
  __syncthreads();
  out[blockIdx.x * 128 + t] = tile[(t + 64) % 96];
}
