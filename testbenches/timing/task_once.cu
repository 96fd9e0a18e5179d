// Task mode (testbenches/timing/test_timing_tasks.cpp): every thread adds 1 to its own counter, so a task that
// ran twice or never shows; a scattered read and a data-dependent branch give DWS memory and branch splits.
__global__ void count_tasks(unsigned* count, unsigned* out, const unsigned* data, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned v = data[(i * 977u) % n];
  if (v & 1u) {
    v = v * 3u + 1u;
  } else {
    v = v / 2u + data[i];
  }
  count[i] += 1u;
  out[i] = v;
}
