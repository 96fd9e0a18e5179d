// The branch-outcome and load-address hooks' testbench (models/ptx/hooks.hpp; testbenches/unit/test_ptx_hooks.cpp,
// testbenches/timing/test_timing_hooks.cpp): a gather load whose per-lane addresses a load hook can rewrite and
// a data-dependent branch (line 10) whose direction a branch hook can override. Each side of the branch writes
// its own value, so an override shows in `out`. Threads from n on leave at the bounds check (line 8).
// PTX: nvcc -ptx -arch=sm_75 -O3 -lineinfo -fmad=false, as scripts/gen-ptx builds the workloads.
extern "C" __global__ void gather_branch(const int* data, const int* index, int* out, int n) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i >= n) return;
  int v = data[index[i]];
  if (v & 1) {
    out[i] = v * 3 + 1;
  } else {
    out[i] = v - 1000;
  }
}
