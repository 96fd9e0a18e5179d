// Deriche recursive Gaussian along columns: one thread per column runs a causal pass down and an
// anti-causal pass up, with clamp-to-edge initial conditions. Coefficients come from the host.
// The trip counts are uniform: this is the suite's long serial-loop, no-divergence workload
// (apart from the column bounds check).

extern "C" __global__ void recursive_gaussian_columns(const float* input, float* output, int width,
                                                      int height, float a0, float a1, float a2, float a3,
                                                      float b1, float b2, float edge_causal,
                                                      float edge_anticausal) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= width) return;

  float x_prev = input[x];
  float y_prev = edge_causal * x_prev;
  float y_prev2 = y_prev;
  for (int y = 0; y < height; ++y) {
    const float x_now = input[y * width + x];
    const float y_now = a0 * x_now + a1 * x_prev - b1 * y_prev - b2 * y_prev2;
    output[y * width + x] = y_now;
    x_prev = x_now;
    y_prev2 = y_prev;
    y_prev = y_now;
  }

  float x_next = input[(height - 1) * width + x];
  float x_next2 = x_next;
  float y_next = edge_anticausal * x_next;
  float y_next2 = y_next;
  for (int y = height - 1; y >= 0; --y) {
    const float x_now = input[y * width + x];
    const float y_now = a2 * x_next + a3 * x_next2 - b1 * y_next - b2 * y_next2;
    x_next2 = x_next;
    x_next = x_now;
    y_next2 = y_next;
    y_next = y_now;
    output[y * width + x] = output[y * width + x] + y_now;
  }
}
