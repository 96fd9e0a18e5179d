// Device functions that stay calls: recursion with a different depth per lane, a divergent branch inside a
// function taking a struct (holding an array) by value, a float result, a function calling another, and a
// function filling the caller's local array through a pointer.
// Compiled twice (testbenches/unit/test_device_calls.cpp):
//   nvcc -ptx -arch=sm_75 -O3 -lineinfo -fmad=false device_calls.cu -o device_calls_O3.ptx
//   nvcc -ptx -arch=sm_75 -O0 -Xcicc -O0 -lineinfo -fmad=false device_calls.cu -o device_calls_O0.ptx
// (plain -O0 only affects host code; -Xcicc -O0 gives the device code of a debug build: every local in
// the __local_depot frame through %SP/%SPL and a call for every function).

struct Window {
  int values[4];
  int count;
  float scale;
};

__device__ __noinline__ int fib(int n) {
  if (n < 2) return n;
  return fib(n - 1) + fib(n - 2);
}

__device__ __noinline__ float window_score(Window w, int bias) {
  float score = 0.0f;
  if (w.count > 2) {
    for (int i = 0; i < w.count && i < 4; ++i) score += w.scale * float(w.values[i]);
  } else {
    score = float(w.values[0] - bias) * 0.5f;
  }
  return score;
}

__device__ __noinline__ int square(int v) {
  return v * v;
}

__device__ __noinline__ int sum_squares(int a, int b) {
  return square(a) + square(b);
}

// Fills an array of the caller (a local array, so a pointer into the caller's local frame).
__device__ __noinline__ void fill_powers(int* values, int n, int base) {
  int v = 1;
  for (int i = 0; i < n; ++i) {
    values[i] = v;
    v *= base;
  }
}

// Depth of node i of an implicit binary heap, recursively.
__device__ __noinline__ int tree_depth(int node) {
  if (node == 0) return 0;
  return 1 + tree_depth((node - 1) / 2);
}

__global__ void device_calls(int* fib_out, float* score_out, int* squares_out, int* depth_out, int* powers_out) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  fib_out[t] = fib((t * 7) % 13);
  Window w;
  for (int i = 0; i < 4; ++i) w.values[i] = t * (i + 1) - 3;
  w.count = t % 6;
  w.scale = 0.25f * float(t % 3 + 1);
  score_out[t] = window_score(w, t % 4);
  squares_out[t] = sum_squares(t, t - 5);
  depth_out[t] = tree_depth(t * 3);
  int powers[6];
  const int n = t % 6 + 1;
  fill_powers(powers, n, t % 4 + 2);
  int sum = 0;
  for (int i = 0; i < n; ++i) sum += powers[i];
  powers_out[t] = sum;
}

// fib(n) for every thread: deep enough recursion overflows the per-thread call stack.
__global__ void fib_of(int* out, int n) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = fib(n + (t & 1));
}
