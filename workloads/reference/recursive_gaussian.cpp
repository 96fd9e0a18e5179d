// Reference of workloads/recursive_gaussian: the kernel's causal and anti-causal column recursions
// with the same operation order ((a*x + a*x) - b*y) - b*y.
#include <fmt/format.h>

#include <algorithm>

#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {

void recursive_gaussian(const launch::Launch& launch, Buffers& buffers) {
  const int width = static_cast<int>(param_int(launch, 2));
  const int height = static_cast<int>(param_int(launch, 3));
  if (width > 0 && height <= 0) reference_error(launch, fmt::format("height {} is not positive", height));
  const uint64_t pixels = elements(width, height);
  const float* input = checked_param_buffer<float>(launch, buffers, 0, pixels, "width x height");
  float* output = checked_param_buffer<float>(launch, buffers, 1, pixels, "width x height");
  const float a0 = param_f32(launch, 4), a1 = param_f32(launch, 5), a2 = param_f32(launch, 6);
  const float a3 = param_f32(launch, 7), b1 = param_f32(launch, 8), b2 = param_f32(launch, 9);
  const float edge_causal = param_f32(launch, 10), edge_anticausal = param_f32(launch, 11);
  const int columns = static_cast<int>(launch.grid.x * launch.block.x);
  for (int x = 0; x < width && x < columns; ++x) {
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
}

}  // namespace simtlm::workloads
