// Kernels for the back-pressure and runaway tests (testbenches/timing/test_timing_backpressure.cpp).
//
// scatter_stores floods the memory system with stores the warps never wait for: each thread writes `reps`
// words a whole grid apart, so every warp instruction is one coalesced 128-byte write and the load/store
// unit's store buffer fills long before the first write reaches DRAM.
extern "C" __global__ void scatter_stores(unsigned int* out, int reps) {
  const unsigned int stride = gridDim.x * blockDim.x;
  const unsigned int tid = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll 1
  for (int r = 0; r < reps; ++r) out[r * stride + tid] = r;
}

// A logging loop whose exit condition was forgotten: it stores forever.
extern "C" __global__ void store_forever(volatile unsigned int* out) {
  unsigned int v = 0;
  for (;;) out[blockIdx.x * blockDim.x + threadIdx.x] = v++;
}

// A consumer waiting for a flag no producer ever sets: it spins forever on a load.
extern "C" __global__ void wait_for_flag(volatile int* flag, int* out) {
  while (*flag == 0) {
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}
