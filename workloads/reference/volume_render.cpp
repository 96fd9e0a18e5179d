// Reference of workloads/volume_render and workloads/volume_render_tex: the kernel's ray setup, slab test,
// trilinear sampling and front-to-back compositing per pixel, with the same float operations in the same
// order.
#include <algorithm>
#include <cmath>

#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {
namespace {

float smaller(float a, float b) {
  return a < b ? a : b;
}
float larger(float a, float b) {
  return a > b ? a : b;
}
float lerp(float a, float b, float f) {
  return a + (b - a) * f;
}

bool enter_box(const float origin[3], const float direction[3], float* t_near, float* t_far) {
  float near = 0.0f, far = 1e30f;
  for (int axis = 0; axis < 3; ++axis) {
    const float inverse = 1.0f / direction[axis];
    const float t0 = (-1.0f - origin[axis]) * inverse;
    const float t1 = (1.0f - origin[axis]) * inverse;
    near = larger(near, smaller(t0, t1));
    far = smaller(far, larger(t0, t1));
  }
  *t_near = near;
  *t_far = far;
  return far > near;
}

int cell_of(float box_coordinate, int size, float* fraction) {
  float g = (box_coordinate + 1.0f) * (0.5f * static_cast<float>(size - 1));
  g = larger(0.0f, smaller(g, static_cast<float>(size - 1)));
  int cell = static_cast<int>(g);
  if (cell > size - 2) cell = size - 2;
  *fraction = g - static_cast<float>(cell);
  return cell;
}

// voxel(x, y, z) is the volume's value there, as a float.
template <class Voxel>
float sample_volume(const Voxel& voxel, int size, const float point[3]) {
  float fx, fy, fz;
  const int x = cell_of(point[0], size, &fx);
  const int y = cell_of(point[1], size, &fy);
  const int z = cell_of(point[2], size, &fz);
  const float c00 = lerp(voxel(x, y, z), voxel(x + 1, y, z), fx);
  const float c10 = lerp(voxel(x, y + 1, z), voxel(x + 1, y + 1, z), fx);
  const float c01 = lerp(voxel(x, y, z + 1), voxel(x + 1, y, z + 1), fx);
  const float c11 = lerp(voxel(x, y + 1, z + 1), voxel(x + 1, y + 1, z + 1), fx);
  return lerp(lerp(c00, c10, fy), lerp(c01, c11, fy), fz);
}

// The image (parameter image_index) of the volume that volume_of(volume_size) gives a voxel(x, y, z) view of.
template <class VolumeView>
void render(const launch::Launch& launch, Buffers& buffers, size_t image_index, const VolumeView& volume_of) {
  const int width = static_cast<int>(param_int(launch, 2));
  const int height = static_cast<int>(param_int(launch, 3));
  const int size = static_cast<int>(param_int(launch, 4));
  const int max_steps = static_cast<int>(param_int(launch, 5));
  const float eye_distance = param_f32(launch, 6), focal_length = param_f32(launch, 7);
  const float view_cos = param_f32(launch, 8), view_sin = param_f32(launch, 9);
  const float step = param_f32(launch, 10), density_scale = param_f32(launch, 11);
  const float absorption = param_f32(launch, 12), opacity_threshold = param_f32(launch, 13);
  const float brightness = param_f32(launch, 14);
  if (size < 2)
    reference_error(launch, "volume_size must be at least 2 (trilinear cells), not " + std::to_string(size));
  uint8_t* image =
      checked_param_buffer<uint8_t>(launch, buffers, image_index, elements(width, height), "width x height");
  const auto voxel = volume_of(size);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const float u = (static_cast<float>(x) + 0.5f) * (2.0f / static_cast<float>(width)) - 1.0f;
      const float v = (static_cast<float>(y) + 0.5f) * (2.0f / static_cast<float>(height)) - 1.0f;
      const float length = std::sqrt(u * u + v * v + focal_length * focal_length);
      const float inverse_length = 1.0f / length;
      const float dx = u * inverse_length, dy = v * inverse_length, dz = focal_length * inverse_length;
      const float direction[3] = {view_cos * dx + view_sin * dz, dy, view_cos * dz - view_sin * dx};
      const float origin[3] = {-view_sin * eye_distance, 0.0f, -view_cos * eye_distance};
      float t_near, t_far;
      uint8_t& pixel = image[y * width + x];
      if (!enter_box(origin, direction, &t_near, &t_far)) {
        pixel = 0;
        continue;
      }
      float colour = 0.0f, alpha = 0.0f, t = t_near;
      for (int i = 0; i < max_steps; ++i) {
        const float point[3] = {origin[0] + direction[0] * t, origin[1] + direction[1] * t,
                                origin[2] + direction[2] * t};
        const float density = sample_volume(voxel, size, point) * density_scale;
        const float weight = (1.0f - alpha) * (density * absorption);
        colour = colour + weight * density;
        alpha = alpha + weight;
        if (alpha > opacity_threshold) break;
        t = t + step;
        if (t > t_far) break;
      }
      pixel = static_cast<uint8_t>(static_cast<int>(smaller(colour * brightness, 1.0f) * 255.0f));
    }
  }
}

}  // namespace

void volume_render(const launch::Launch& launch, Buffers& buffers) {
  render(launch, buffers, 0, [&](int size) {
    const uint8_t* volume =
        checked_param_buffer<uint8_t>(launch, buffers, 1, elements(size, size, size), "volume_size^3 voxels");
    return [volume, size](int x, int y, int z) -> float { return volume[(z * size + y) * size + x]; };
  });
}

// The texture version clamps every coordinate as the texture does; cell_of keeps the reads inside the volume,
// so the image is volume_render's.
void volume_render_tex(const launch::Launch& launch, Buffers& buffers) {
  render(launch, buffers, 0, [&](int size) {
    const launch::TextureSpec& texture = param_texture(launch, 1, {size, size, size}, 3, ptx::Type::u8);
    const uint8_t* volume = checked_view<uint8_t>(launch, buffers, texture.buffer, elements(size, size, size),
                                                  "the texture's texels");
    return [volume, size](int x, int y, int z) -> float {
      const auto clamp = [size](int c) { return std::clamp(c, 0, size - 1); };
      return volume[(clamp(z) * size + clamp(y)) * size + clamp(x)];
    };
  });
}

}  // namespace simtlm::workloads
