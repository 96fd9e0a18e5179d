// Reference of workloads/sobel and workloads/sobel_tex: |gradient| via IEEE sqrtf, truncated and clamped to
// 255; border pixels 0. sobel_tex reads its pixels as a clamp-addressed texture would (only herded border
// pixels would read past the image; inside it both read the same pixels).
#include <algorithm>
#include <cmath>

#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {
namespace {

// pixel(x, y) is the image's value at (x, y).
template <class Pixel>
void sobel_edges(int width, int height, const Pixel& pixel, uint8_t* edges) {
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      if (x == 0 || y == 0 || x == width - 1 || y == height - 1) {
        edges[y * width + x] = 0;
        continue;
      }
      auto at = [&](int dx, int dy) { return pixel(x + dx, y + dy); };
      const int gx = (at(1, -1) + 2 * at(1, 0) + at(1, 1)) - (at(-1, -1) + 2 * at(-1, 0) + at(-1, 1));
      const int gy = (at(-1, 1) + 2 * at(0, 1) + at(1, 1)) - (at(-1, -1) + 2 * at(0, -1) + at(1, -1));
      const float magnitude = std::sqrt(static_cast<float>(gx * gx + gy * gy));
      edges[y * width + x] = static_cast<uint8_t>(magnitude > 255.0f ? 255 : static_cast<int>(magnitude));
    }
  }
}

}  // namespace

void sobel(const launch::Launch& launch, Buffers& buffers) {
  const int width = static_cast<int>(param_int(launch, 2));
  const int height = static_cast<int>(param_int(launch, 3));
  const uint64_t pixels = elements(width, height);
  const uint8_t* image = checked_param_buffer<uint8_t>(launch, buffers, 0, pixels, "width x height");
  uint8_t* edges = checked_param_buffer<uint8_t>(launch, buffers, 1, pixels, "width x height");
  sobel_edges(
      width, height, [&](int x, int y) { return static_cast<int>(image[y * width + x]); }, edges);
}

void sobel_tex(const launch::Launch& launch, Buffers& buffers) {
  const int width = static_cast<int>(param_int(launch, 2));
  const int height = static_cast<int>(param_int(launch, 3));
  const uint64_t pixels = elements(width, height);
  const launch::TextureSpec& texture = param_texture(launch, 0, {width, height, 1}, 2, ptx::Type::u8);
  const uint8_t* image =
      checked_view<uint8_t>(launch, buffers, texture.buffer, pixels, "the texture's texels");
  uint8_t* edges = checked_param_buffer<uint8_t>(launch, buffers, 1, pixels, "width x height");
  sobel_edges(
      width, height,
      [&](int x, int y) {
        return static_cast<int>(image[std::clamp(y, 0, height - 1) * width + std::clamp(x, 0, width - 1)]);
      },
      edges);
}

}  // namespace simtlm::workloads
