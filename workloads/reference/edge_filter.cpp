// Reference of workloads/edge_filter: |gx| + |gy| of the 3x3 Sobel weights, saturated to 255; border pixels
// 0.
#include <cstdlib>

#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {

void edge_filter(const launch::Launch& launch, Buffers& buffers) {
  const int width = static_cast<int>(param_int(launch, 2));
  const int height = static_cast<int>(param_int(launch, 3));
  const uint64_t pixels = elements(width, height);
  const uint8_t* image = checked_param_buffer<uint8_t>(launch, buffers, 0, pixels, "width x height");
  uint8_t* edges = checked_param_buffer<uint8_t>(launch, buffers, 1, pixels, "width x height");
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      uint8_t& out = edges[y * width + x];
      if (x == 0 || y == 0 || x == width - 1 || y == height - 1) {
        out = 0;
        continue;
      }
      auto at = [&](int dx, int dy) { return static_cast<int>(image[(y + dy) * width + x + dx]); };
      const int gx = (at(1, -1) + 2 * at(1, 0) + at(1, 1)) - (at(-1, -1) + 2 * at(-1, 0) + at(-1, 1));
      const int gy = (at(-1, 1) + 2 * at(0, 1) + at(1, 1)) - (at(-1, -1) + 2 * at(0, -1) + at(1, -1));
      const int magnitude = std::abs(gx) + std::abs(gy);
      out = static_cast<uint8_t>(magnitude > 255 ? 255 : magnitude);
    }
  }
}

}  // namespace simtlm::workloads
