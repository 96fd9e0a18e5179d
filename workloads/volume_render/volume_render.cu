// Volume rendering of a 3-D density volume (branch-data-herding paper, volumeRender): one ray per pixel,
// front-to-back compositing with trilinear sampling. Rays leave the march when the pixel turns opaque or
// the ray leaves the box, at different samples per lane, so the two exits diverge.
#include "volume_render.cuh"

struct OwnCondition {
  __device__ bool operator()(bool condition) const { return condition; }
};

extern "C" __global__ void volume_render(unsigned char* image, const unsigned char* volume, int width,
                                         int height, int volume_size, int max_steps, float eye_distance,
                                         float focal_length, float view_cos, float view_sin, float step,
                                         float density_scale, float absorption, float opacity_threshold,
                                         float brightness) {
  const RenderParams params{width,     height,   volume_size, max_steps,     eye_distance, focal_length,
                            view_cos,  view_sin, step,        density_scale, absorption,   opacity_threshold,
                            brightness};
  render_pixel(image, volume, params, OwnCondition{});
}
