// Reference of workloads/sobel: |gradient| via IEEE sqrtf, truncated and clamped to 255;
// border pixels 0.
#include <cmath>

#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {

void sobel(const launch::Launch& launch, Buffers& buffers) {
  const int width = static_cast<int>(param_int(launch, 2));
  const int height = static_cast<int>(param_int(launch, 3));
  const uint64_t pixels = elements(width, height);
  const uint8_t* image = checked_param_buffer<uint8_t>(launch, buffers, 0, pixels, "width x height");
  uint8_t* edges = checked_param_buffer<uint8_t>(launch, buffers, 1, pixels, "width x height");
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      if (x == 0 || y == 0 || x == width - 1 || y == height - 1) {
        edges[y * width + x] = 0;
        continue;
      }
      auto at = [&](int dx, int dy) { return static_cast<int>(image[(y + dy) * width + x + dx]); };
      const int gx = (at(1, -1) + 2 * at(1, 0) + at(1, 1)) - (at(-1, -1) + 2 * at(-1, 0) + at(-1, 1));
      const int gy = (at(-1, 1) + 2 * at(0, 1) + at(1, 1)) - (at(-1, -1) + 2 * at(0, -1) + at(1, -1));
      const float magnitude = std::sqrt(static_cast<float>(gx * gx + gy * gy));
      edges[y * width + x] = static_cast<uint8_t>(magnitude > 255.0f ? 255 : static_cast<int>(magnitude));
    }
  }
}

}  // namespace simtlm::workloads
