// Recursive interval bisection whose frame ptxas sizes (testbenches/unit/test_call_frames.cpp): the model's
// charge for a call of sign_changes against the per-thread call stack, beside `ptxas -v`'s frame.
//   nvcc -ptx -arch=sm_75 -O3 -lineinfo -fmad=false call_frames.cu -o call_frames.ptx
//   (then the .file line names call_frames.cu without its directory)
//   ptxas -v -arch=sm_75 call_frames.ptx -o /dev/null   (prints "N bytes stack frame" per function)

__device__ float cubic(float x) {
  return (x - 0.2f) * (x - 0.45f) * (x - 0.8f);
}

// Root bracketing by bisection: the number of sign changes of the cubic that halving [lo, hi] depth times
// isolates (only halves whose ends differ in sign are split again, so the work grows with depth, not
// 2^depth). The end values sit in a local array indexed by depth, so the function has a __local_depot.
__device__ __noinline__ int sign_changes(float lo, float hi, int depth) {
  float ends[4];
  ends[depth & 3] = cubic(lo);
  ends[(depth + 1) & 3] = cubic(hi);
  const bool change = (ends[depth & 3] < 0.0f) != (ends[(depth + 1) & 3] < 0.0f);
  if (depth == 0 || !change) return change;
  const float mid = 0.5f * (lo + hi);
  return sign_changes(lo, mid, depth - 1) + sign_changes(mid, hi, depth - 1);
}

// Thread t bisects [lo, lo + 2 + t / 8] down to depth + t % 2 levels: up to depth + t % 2 + 1 nested calls.
__global__ void bisect(int* out, float lo, int depth) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = sign_changes(lo, lo + 2.0f + 0.125f * float(t), depth + (t & 1));
}
