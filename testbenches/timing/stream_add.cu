// Streaming vector add in the style of the CUDA samples' vectorAdd: every element is read and written once,
// so the DRAM traffic of a timing run is exactly the bytes the kernel touches
// (testbenches/timing/test_timing_memory.cpp).
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
