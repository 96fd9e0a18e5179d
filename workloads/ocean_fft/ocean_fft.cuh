// The ocean spectrum update shared by ocean_fft.cu (exact) and ocean_fft_swherd.cu (software branch
// herding): h(k, t) = h0(k) e^{i w t} + conj(h0(-k)) e^{-i w t} with the deep-water dispersion
// w = sqrt(g |k|). sin and cos are polynomials of our own (mirrored in the host reference).
#pragma once

// sin and cos of a: reduce to |r| <= pi/4 around the nearest multiple q of pi/2 (pi/2 split in two), Taylor
// polynomials there, then rotate by the quadrant q mod 4 with selects rather than branches.
__device__ inline void sin_cos_poly(float a, float* sine, float* cosine) {
  const float q = floorf(a * 0.636619772f + 0.5f);
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

// Spectrum element (x, y) of an out_width x out_height grid; h0 has in_width = out_width + 1 columns and
// out_height + 1 rows, so the mirrored element (out_width - x, out_height - y) always exists.
__device__ inline void spectrum_element(float2* spectrum, const float2* h0, unsigned x, unsigned y,
                                        unsigned in_width, unsigned out_width, unsigned out_height,
                                        float time, float patch_size) {
  const float to_wavenumber = 6.28318531f / patch_size;
  const float kx = (static_cast<float>(x) - 0.5f * out_width) * to_wavenumber;
  const float ky = (static_cast<float>(y) - 0.5f * out_height) * to_wavenumber;
  const float omega = sqrtf(9.81f * sqrtf(kx * kx + ky * ky));
  float sine, cosine;
  sin_cos_poly(omega * time, &sine, &cosine);
  const float2 h = h0[y * in_width + x];
  const float2 mirrored = h0[(out_height - y) * in_width + (out_width - x)];
  // h e^{iwt} + conj(mirrored) e^{-iwt}
  const float re = (h.x * cosine - h.y * sine) + (mirrored.x * cosine - mirrored.y * sine);
  const float im = (h.x * sine + h.y * cosine) - (mirrored.x * sine + mirrored.y * cosine);
  spectrum[y * out_width + x] = make_float2(re, im);
}
