// Ocean heightfield spectrum (branch-data-herding paper, oceanFFT): one thread per wave vector of an
// out_width x out_height grid. The 2-D grid of CTAs overhangs the right and bottom edges, so the bounds
// check diverges in the warps that straddle the right edge, the paper's source of divergence here.
#include "ocean_fft.cuh"

extern "C" __global__ void ocean_spectrum(float2* spectrum, const float2* h0, unsigned in_width,
                                          unsigned out_width, unsigned out_height, float time,
                                          float patch_size) {
  const unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < out_width && y < out_height)
    spectrum_element(spectrum, h0, x, y, in_width, out_width, out_height, time, patch_size);
}
