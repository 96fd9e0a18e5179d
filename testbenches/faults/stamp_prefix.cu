// Fault-injection kernel: stamps the first n elements of a large output buffer, so a run writes big outputs
// while the simulation itself stays short. Different stamps tell an old output set from a new one.
extern "C" __global__ void stamp_prefix(unsigned int* out, unsigned int n, unsigned int stamp) {
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = stamp ^ (i * 2654435761u);
}
