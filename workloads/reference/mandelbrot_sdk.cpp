// Reference of workloads/mandelbrot_sdk (mandelbrot_sdk.yaml and julia_sdk.yaml): the count of the rolled
// escape loop of the branch-herding paper's Figure 1, `i = crunch; while (--i && xx + yy < 4) { y = x * y *
// 2 + yC; x = xx - yy + xC; yy = y * y; xx = x * x; } return i;`, per pixel, coloured as the kernel does.
// The kernel runs the loop unrolled 20 times with early returns; matching this bit for bit shows the two
// give the same count for every pixel of the launch. Float operations in the kernel's order, no contraction.
#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {
namespace {

int rolled_escape_count(float x, float y, float c_re, float c_im, int crunch) {
  float xx = x * x, yy = y * y;
  int i = crunch;
  while (--i && xx + yy < 4.0f) {
    y = x * y * 2.0f + c_im;
    x = xx - yy + c_re;
    yy = y * y;
    xx = x * x;
  }
  return i;
}

}  // namespace

void mandelbrot_sdk(const launch::Launch& launch, Buffers& buffers) {
  const int width = static_cast<int>(param_int(launch, 1));
  const int height = static_cast<int>(param_int(launch, 2));
  // One u32 per pixel: the kernel's uchar4 (r, g, b, 0) read little-endian.
  uint32_t* pixels =
      checked_param_buffer<uint32_t>(launch, buffers, 0, elements(width, height), "one RGBA pixel per u32");
  const int64_t crunch = param_int(launch, 3);
  // The rolled loop counts down from crunch to 0; below 1 it would run until the counter wrapped.
  if (crunch < 1 || crunch > (int64_t{1} << 24))
    reference_error(launch, "crunch (parameter 3) must be in 1..2^24, not " + std::to_string(crunch));
  const float x_center = param_f32(launch, 4), y_center = param_f32(launch, 5), step = param_f32(launch, 6);
  const float julia_re = param_f32(launch, 7), julia_im = param_f32(launch, 8);
  const bool is_julia = param_int(launch, 9) != 0;
  const uint32_t colour[3] = {static_cast<uint32_t>(param_int(launch, 10)),
                              static_cast<uint32_t>(param_int(launch, 11)),
                              static_cast<uint32_t>(param_int(launch, 12))};
  for (int py = 0; py < height; ++py) {
    for (int px = 0; px < width; ++px) {
      const float x_pos = x_center + static_cast<float>(px - width / 2) * step;
      const float y_pos = y_center + static_cast<float>(py - height / 2) * step;
      const int m = is_julia ? rolled_escape_count(x_pos, y_pos, julia_re, julia_im, static_cast<int>(crunch))
                             : rolled_escape_count(0.0f, 0.0f, x_pos, y_pos, static_cast<int>(crunch));
      uint32_t rgba = 0;
      for (int channel = 0; channel < 3; ++channel)
        rgba |= uint32_t{static_cast<uint8_t>(static_cast<uint32_t>(m) * colour[channel])} << (8 * channel);
      pixels[static_cast<uint64_t>(py) * static_cast<uint64_t>(width) + px] = rgba;
    }
  }
}

}  // namespace simtlm::workloads
