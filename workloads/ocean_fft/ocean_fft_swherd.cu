// ocean_fft with software branch herding on the bounds check: a warp straddling the edge follows the strict
// majority of its lanes. Lanes outside the grid that are herded in compute the element of the clamped
// (edge) position, which its own lane writes with the same value; lanes inside that are herded out leave
// their element unwritten, the deviation at the edge the paper describes.
#include "ocean_fft.cuh"

__device__ bool herd(bool condition) {
  const unsigned lanes = __activemask();
  return 2 * __popc(__ballot_sync(lanes, condition)) > __popc(lanes);
}

extern "C" __global__ void ocean_spectrum_swherd(float2* spectrum, const float2* h0, unsigned in_width,
                                                 unsigned out_width, unsigned out_height, float time,
                                                 float patch_size) {
  const unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
  if (herd(x < out_width && y < out_height)) {
    spectrum_element(spectrum, h0, min(x, out_width - 1), min(y, out_height - 1), in_width, out_width,
                     out_height, time, patch_size);
  }
}
