// Reference of workloads/ocean_fft: the kernel's spectrum update for every (x, y) inside the grid, with
// its sin/cos polynomials and the same float operations in the same order.
#include <cmath>

#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {
namespace {

void sin_cos_poly(float a, float* sine, float* cosine) {
  const float q = std::floor(a * 0.636619772f + 0.5f);
  const float r = (a - q * 1.57079625f) - q * 7.54978995e-8f;
  const float r2 = r * r;
  float s = -1.98412698e-4f;
  s = s * r2 + 8.33333333e-3f;
  s = s * r2 - 1.66666667e-1f;
  const float sin_r = r + r * r2 * s;
  float c = 2.48015873e-5f;
  c = c * r2 - 1.38888889e-3f;
  c = c * r2 + 4.16666667e-2f;
  c = c * r2 - 0.5f;
  const float cos_r = 1.0f + r2 * c;
  const int quadrant = static_cast<int>(q) & 3;
  const float swap_sin = (quadrant & 1) ? cos_r : sin_r;
  const float swap_cos = (quadrant & 1) ? sin_r : cos_r;
  *sine = (quadrant & 2) ? -swap_sin : swap_sin;
  *cosine = ((quadrant + 1) & 2) ? -swap_cos : swap_cos;
}

}  // namespace

void ocean_fft(const launch::Launch& launch, Buffers& buffers) {
  const auto in_width = static_cast<uint32_t>(param_int(launch, 2));
  const auto out_width = static_cast<uint32_t>(param_int(launch, 3));
  const auto out_height = static_cast<uint32_t>(param_int(launch, 4));
  const float time = param_f32(launch, 5), patch_size = param_f32(launch, 6);
  if (in_width <= out_width) {
    reference_error(launch, "in_width must exceed out_width (h0 holds the mirrored column out_width), not " +
                                std::to_string(in_width));
  }
  float* spectrum = checked_param_buffer<float>(launch, buffers, 0, 2 * elements(out_width, out_height),
                                                "a float2 per element of out_width x out_height");
  const float* h0 = checked_param_buffer<float>(launch, buffers, 1, 2 * elements(in_width, out_height + 1),
                                                "a float2 per element of in_width x (out_height + 1)");
  const uint64_t threads_x = uint64_t{launch.grid.x} * launch.block.x;
  const uint64_t threads_y = uint64_t{launch.grid.y} * launch.block.y;
  const float to_wavenumber = 6.28318531f / patch_size;
  for (uint32_t y = 0; y < out_height && y < threads_y; ++y) {
    for (uint32_t x = 0; x < out_width && x < threads_x; ++x) {
      const float kx = (static_cast<float>(x) - 0.5f * static_cast<float>(out_width)) * to_wavenumber;
      const float ky = (static_cast<float>(y) - 0.5f * static_cast<float>(out_height)) * to_wavenumber;
      const float omega = std::sqrt(9.81f * std::sqrt(kx * kx + ky * ky));
      float sine, cosine;
      sin_cos_poly(omega * time, &sine, &cosine);
      const float* h = h0 + 2 * (uint64_t{y} * in_width + x);
      const float* mirrored = h0 + 2 * (uint64_t{out_height - y} * in_width + (out_width - x));
      float* out = spectrum + 2 * (uint64_t{y} * out_width + x);
      out[0] = (h[0] * cosine - h[1] * sine) + (mirrored[0] * cosine - mirrored[1] * sine);
      out[1] = (h[0] * sine + h[1] * cosine) - (mirrored[0] * sine + mirrored[1] * cosine);
    }
  }
}

}  // namespace simtlm::workloads
