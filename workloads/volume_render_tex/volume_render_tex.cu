// Volume rendering as workloads/volume_render computes it, with the volume read through a 3-D texture
// object: each of the eight voxels of a trilinear cell is a tex3D<unsigned char> point fetch (clamp
// addressing, texel coordinates) and the kernel weights them itself, so the result is bit for bit
// volume_render's (cell_of keeps every cell inside the volume; the clamp never triggers). The ray setup,
// slab test and helpers are volume_render.cuh's; the march is render_pixel's with the texture sampler.
#include "../volume_render/volume_render.cuh"

__device__ inline float voxel(cudaTextureObject_t volume, int x, int y, int z) {
  return tex3D<unsigned char>(volume, static_cast<float>(x), static_cast<float>(y), static_cast<float>(z));
}

// sample_volume of volume_render.cuh through the texture: the same lerps in the same order.
__device__ inline float sample_texture(cudaTextureObject_t volume, int size, const float point[3]) {
  float fx, fy, fz;
  const int x = cell_of(point[0], size, &fx);
  const int y = cell_of(point[1], size, &fy);
  const int z = cell_of(point[2], size, &fz);
  const float c00 = lerp(voxel(volume, x, y, z), voxel(volume, x + 1, y, z), fx);
  const float c10 = lerp(voxel(volume, x, y + 1, z), voxel(volume, x + 1, y + 1, z), fx);
  const float c01 = lerp(voxel(volume, x, y, z + 1), voxel(volume, x + 1, y, z + 1), fx);
  const float c11 = lerp(voxel(volume, x, y + 1, z + 1), voxel(volume, x + 1, y + 1, z + 1), fx);
  return lerp(lerp(c00, c10, fy), lerp(c01, c11, fy), fz);
}

extern "C" __global__ void volume_render_tex(unsigned char* image, cudaTextureObject_t volume, int width,
                                             int height, int volume_size, int max_steps, float eye_distance,
                                             float focal_length, float view_cos, float view_sin, float step,
                                             float density_scale, float absorption, float opacity_threshold,
                                             float brightness) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const float u = (x + 0.5f) * (2.0f / width) - 1.0f;
  const float v = (y + 0.5f) * (2.0f / height) - 1.0f;
  const float length = sqrtf(u * u + v * v + focal_length * focal_length);
  const float inverse_length = 1.0f / length;
  const float dx = u * inverse_length, dy = v * inverse_length, dz = focal_length * inverse_length;
  const float direction[3] = {view_cos * dx + view_sin * dz, dy, view_cos * dz - view_sin * dx};
  const float origin[3] = {-view_sin * eye_distance, 0.0f, -view_cos * eye_distance};
  float t_near, t_far;
  if (!enter_box(origin, direction, &t_near, &t_far)) {
    image[y * width + x] = 0;
    return;
  }
  float colour = 0.0f, alpha = 0.0f, t = t_near;
  for (int i = 0; i < max_steps; ++i) {
    const float point[3] = {origin[0] + direction[0] * t, origin[1] + direction[1] * t,
                            origin[2] + direction[2] * t};
    const float density = sample_texture(volume, volume_size, point) * density_scale;
    const float weight = (1.0f - alpha) * (density * absorption);
    colour = colour + weight * density;
    alpha = alpha + weight;
    if (alpha > opacity_threshold) break;  // opaque
    t = t + step;
    if (t > t_far) break;  // far
  }
  image[y * width + x] = static_cast<unsigned char>(smaller(colour * brightness, 1.0f) * 255.0f);
}
