// volume_render with software branch herding on the opaque and far exits: each lane follows the strict
// majority of the warp's active lanes (lanes whose ray missed the box have returned and do not vote). The
// image differs from volume_render's on purpose.
#include "volume_render.cuh"

__device__ bool herd(bool condition) {
  const unsigned lanes = __activemask();
  return 2 * __popc(__ballot_sync(lanes, condition)) > __popc(lanes);
}

struct Herd {
  __device__ bool operator()(bool condition) const { return herd(condition); }
};

extern "C" __global__ void volume_render_swherd(unsigned char* image, const unsigned char* volume, int width,
                                                int height, int volume_size, int max_steps,
                                                float eye_distance, float focal_length, float view_cos,
                                                float view_sin, float step, float density_scale,
                                                float absorption, float opacity_threshold, float brightness) {
  const RenderParams params{width,     height,   volume_size, max_steps,     eye_distance, focal_length,
                            view_cos,  view_sin, step,        density_scale, absorption,   opacity_threshold,
                            brightness};
  render_pixel(image, volume, params, Herd{});
}
