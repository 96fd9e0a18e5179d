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

// A convergence loop whose target can never be reached (h stays odd, `stop` is 0): it computes forever
// without touching memory.
extern "C" __global__ void alu_forever(unsigned int* out, unsigned int stop) {
  unsigned int h = 2u * threadIdx.x + 1u;
  while (h != stop) h = h * 3u + 2u;
  out[blockIdx.x * blockDim.x + threadIdx.x] = h;
}

// A kernel with CUDA's largest per-thread stack frame (512 KiB of .local) that touches one word of it: the
// host memory of a run must follow what the kernel writes, not what it declares (docs/reliability.md).
extern "C" __global__ void local_frame(unsigned int* out, int index) {
  volatile unsigned int frame[131072];
  frame[index] = threadIdx.x;
  out[blockIdx.x * blockDim.x + threadIdx.x] = frame[index];
}
