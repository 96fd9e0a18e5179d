// Forward step of a back-propagation layer: each 16x8 CTA multiplies an 8-input slice by the
// weights of 16 hidden units and reduces over the inputs with a shared-memory tree in which only
// rows with ty % power_two == 0 work (divergence across warps, then within a warp).

constexpr int kHidden = 16;       // blockDim.x
constexpr int kInputsPerCta = 8;  // blockDim.y

extern "C" __global__ void backprop_forward(const float* inputs, const float* weights, float* partial_sums) {
  __shared__ float input_slice[kInputsPerCta];
  __shared__ float products[kInputsPerCta][kHidden];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int input_index = blockIdx.y * kInputsPerCta + ty;
  if (tx == 0) input_slice[ty] = inputs[input_index];
  __syncthreads();
  products[ty][tx] = weights[input_index * kHidden + tx] * input_slice[ty];
  __syncthreads();
  for (int power_two = 2; power_two <= kInputsPerCta; power_two *= 2) {
    if (ty % power_two == 0) products[ty][tx] += products[ty + power_two / 2][tx];
    __syncthreads();
  }
  if (ty == 0) partial_sums[blockIdx.y * kHidden + tx] = products[0][tx];
}
