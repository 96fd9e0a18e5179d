// The z <- z^2 + c step shared by the mandelbrot, julia and herding references, written with the
// kernels' exact operation order (each product and sum rounded to float, no contraction).
#pragma once

namespace simtlm::workloads {

struct Complex {
  float re, im;
};

inline bool bounded(Complex z) {
  return z.re * z.re + z.im * z.im <= 4.0f;
}

inline Complex square_plus(Complex z, Complex c) {
  const float next_re = z.re * z.re - z.im * z.im + c.re;
  return {next_re, 2.0f * z.re * z.im + c.im};
}

// Pixel coordinate -> plane, as `origin + x * step` with x converted to float first.
inline float to_plane(float origin, int pixel, float step) {
  return origin + static_cast<float>(pixel) * step;
}

inline int escape_count(Complex z, Complex c, int max_iterations) {
  int count = 0;
  while (count < max_iterations && bounded(z)) {
    z = square_plus(z, c);
    ++count;
  }
  return count;
}

}  // namespace simtlm::workloads
