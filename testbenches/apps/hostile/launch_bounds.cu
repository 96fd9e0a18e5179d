// __launch_bounds__(128) gives the PTX `.maxntid 128, 1, 1`; CUDA refuses a launch of more threads per block
// ("too many resources requested for launch"), so the simulator must not run it either.
__global__ void __launch_bounds__(128) bounded(float* out) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f;
}
