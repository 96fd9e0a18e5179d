// Reference of workloads/convolution: row pass then column pass with clamp-to-edge, each sum
// starting at 0.0f and running tap 0..4 like the kernel (the row pass of a clamped apron row
// equals the row pass of the edge row, so whole-image passes match the tiled kernel).
#include <algorithm>
#include <array>
#include <vector>

#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {

void convolution(const launch::Launch& launch, Buffers& buffers) {
  constexpr int kRadius = 2;
  const int width = static_cast<int>(param_int(launch, 2));
  const int height = static_cast<int>(param_int(launch, 3));
  const uint64_t pixels = elements(width, height);
  const float* input = checked_param_buffer<float>(launch, buffers, 0, pixels, "width x height");
  float* output = checked_param_buffer<float>(launch, buffers, 1, pixels, "width x height");
  std::array<float, 2 * kRadius + 1> taps;
  for (size_t k = 0; k < taps.size(); ++k) taps[k] = param_f32(launch, 4 + k);
  auto clamp_x = [&](int x) { return std::clamp(x, 0, width - 1); };
  auto clamp_y = [&](int y) { return std::clamp(y, 0, height - 1); };

  std::vector<float> rows(static_cast<size_t>(width) * height);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      float sum = 0.0f;
      for (int k = 0; k <= 2 * kRadius; ++k) sum += taps[k] * input[y * width + clamp_x(x - kRadius + k)];
      rows[y * width + x] = sum;
    }
  }
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      float sum = 0.0f;
      for (int k = 0; k <= 2 * kRadius; ++k) sum += taps[k] * rows[clamp_y(y - kRadius + k) * width + x];
      output[y * width + x] = sum;
    }
  }
}

}  // namespace simtlm::workloads
