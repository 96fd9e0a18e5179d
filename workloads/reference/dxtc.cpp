// Reference of workloads/dxtc: DXT1 blocks with bounding-box end points in RGB565 and the nearest of the
// four palette colours per texel (the first of equally near ones, in the order c0, c1, c2, c3); flat
// blocks keep index 0.
#include <algorithm>

#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {
namespace {

uint32_t to_rgb565(int r, int g, int b) {
  return (static_cast<uint32_t>(r >> 3) << 11) | (static_cast<uint32_t>(g >> 2) << 5) |
         static_cast<uint32_t>(b >> 3);
}

struct Rgb {
  int r, g, b;
};

Rgb from_rgb565(uint32_t c) {
  const int r5 = static_cast<int>(c >> 11), g6 = static_cast<int>((c >> 5) & 63),
            b5 = static_cast<int>(c & 31);
  return {(r5 << 3) | (r5 >> 2), (g6 << 2) | (g6 >> 4), (b5 << 3) | (b5 >> 2)};
}

int squared_distance(const Rgb& a, const Rgb& b) {
  return (a.r - b.r) * (a.r - b.r) + (a.g - b.g) * (a.g - b.g) + (a.b - b.b) * (a.b - b.b);
}

}  // namespace

void dxtc(const launch::Launch& launch, Buffers& buffers) {
  const int width = static_cast<int>(param_int(launch, 2));
  const int height = static_cast<int>(param_int(launch, 3));
  const int blocks_x = width / 4, blocks_y = height / 4;
  const uint32_t* rgba =
      checked_param_buffer<uint32_t>(launch, buffers, 0, elements(width, height), "width x height");
  uint32_t* blocks = checked_param_buffer<uint32_t>(launch, buffers, 1, 2 * elements(blocks_x, blocks_y),
                                                    "two per 4x4 block");
  for (int block = 0; block < blocks_x * blocks_y; ++block) {
    Rgb texels[16];
    Rgb low{255, 255, 255}, high{0, 0, 0};
    for (int t = 0; t < 16; ++t) {
      const int x = (block % blocks_x) * 4 + t % 4, y = (block / blocks_x) * 4 + t / 4;
      const uint32_t pixel = rgba[y * width + x];
      texels[t] = {static_cast<int>(pixel & 255), static_cast<int>((pixel >> 8) & 255),
                   static_cast<int>((pixel >> 16) & 255)};
      low = {std::min(low.r, texels[t].r), std::min(low.g, texels[t].g), std::min(low.b, texels[t].b)};
      high = {std::max(high.r, texels[t].r), std::max(high.g, texels[t].g), std::max(high.b, texels[t].b)};
    }
    const uint32_t c0 = to_rgb565(high.r, high.g, high.b), c1 = to_rgb565(low.r, low.g, low.b);
    uint32_t bits = 0;
    if (c0 != c1) {
      const Rgb p0 = from_rgb565(c0), p1 = from_rgb565(c1);
      const Rgb palette[4] = {p0,
                              p1,
                              {(2 * p0.r + p1.r) / 3, (2 * p0.g + p1.g) / 3, (2 * p0.b + p1.b) / 3},
                              {(p0.r + 2 * p1.r) / 3, (p0.g + 2 * p1.g) / 3, (p0.b + 2 * p1.b) / 3}};
      for (int t = 0; t < 16; ++t) {
        uint32_t index = 0;
        int best = squared_distance(texels[t], palette[0]);
        for (uint32_t k = 1; k < 4; ++k) {
          const int d = squared_distance(texels[t], palette[k]);
          if (d < best) {
            best = d;
            index = k;
          }
        }
        bits |= index << (2 * t);
      }
    }
    blocks[2 * block] = c0 | (c1 << 16);
    blocks[2 * block + 1] = bits;
  }
}

}  // namespace simtlm::workloads
