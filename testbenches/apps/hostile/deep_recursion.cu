// Issue 32, point 4: recursion the call stack cannot hold. `depth` counts levels down to zero, so a launch
// parameter of 100,000 asks for 100,000 nested calls (far past CUDA's 1,024-byte default stack and
// simtlm's 64 KiB limit_stack_size maximum); `forever` calls itself with no base case. Both must end with
// the located call-stack overflow error in functional and timing mode (scripts/check-hostile-cli).
__device__ __noinline__ unsigned depth(unsigned n, const unsigned* salt) {
  if (n == 0) return salt[0];
  return depth(n - 1, salt) + salt[n & 7];  // the addition keeps the call from becoming a loop
}

__device__ __noinline__ unsigned forever(unsigned n, const unsigned* salt) {
  return forever(n + salt[n & 7], salt) ^ n;
}

extern "C" __global__ void deep(unsigned levels, const unsigned* salt, unsigned* out) {
  out[threadIdx.x] = depth(levels + threadIdx.x, salt);
}

extern "C" __global__ void unbounded(const unsigned* salt, unsigned* out) {
  out[threadIdx.x] = forever(threadIdx.x, salt);
}
