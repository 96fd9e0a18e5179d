// Module variables next to launch buffers: a store to one __device__ variable must land in it and nowhere
// else, however large the other variables are (the allocator tests of test_launch_hostile.cpp).
__device__ unsigned char big[1 << 20];
__device__ unsigned int second;

__global__ void touch_globals(unsigned int* out, unsigned int value) {
  if (threadIdx.x == 0) {
    second = value;
    big[sizeof(big) - 1] = 1;
    out[blockIdx.x] = value + 1;
  }
}
