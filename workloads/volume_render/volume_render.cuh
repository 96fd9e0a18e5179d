// Ray marching through a u8 density volume, shared by volume_render.cu (exact) and volume_render_swherd.cu
// (software branch herding). The two early exits of the march, "opaque" (accumulated alpha above the
// threshold) and "far" (t beyond the ray's exit from the box), go through Decide, which either takes the
// lane's own condition or the warp's majority vote on it.
#pragma once

struct RenderParams {
  int width, height;         // image size in pixels
  int volume_size;           // voxels per edge of the cubic volume
  int max_steps;             // samples per ray at most
  float eye_distance;        // the eye sits at distance eye_distance from the box centre
  float focal_length;        // image plane distance from the eye; the plane spans [-1, 1]^2
  float view_cos, view_sin;  // rotation of the camera about the y axis
  float step;                // ray parameter increment (rays are unit length)
  float density_scale;       // voxel value to density in [0, 1]
  float absorption;          // alpha of one sample per unit density
  float opacity_threshold;   // the "opaque" exit
  float brightness;          // accumulated colour to pixel scale before clamping to 1
};

__device__ inline float smaller(float a, float b) {
  return a < b ? a : b;
}
__device__ inline float larger(float a, float b) {
  return a > b ? a : b;
}
__device__ inline float lerp(float a, float b, float f) {
  return a + (b - a) * f;
}

// Slab test against the box [-1, 1]^3. The eye is outside the box and off every slab's edge, so no
// 0 * inf products arise.
__device__ inline bool enter_box(const float origin[3], const float direction[3], float* t_near,
                                 float* t_far) {
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

// Voxel-space coordinate of a box coordinate, clamped so that the 2x2x2 cell stays inside the volume.
__device__ inline int cell_of(float box_coordinate, int size, float* fraction) {
  float g = (box_coordinate + 1.0f) * (0.5f * (size - 1));
  g = larger(0.0f, smaller(g, static_cast<float>(size - 1)));
  int cell = static_cast<int>(g);
  if (cell > size - 2) cell = size - 2;
  *fraction = g - cell;
  return cell;
}

// Trilinear interpolation of the eight voxels around a point, along x, then y, then z.
__device__ inline float sample_volume(const unsigned char* volume, int size, const float point[3]) {
  float fx, fy, fz;
  const int x = cell_of(point[0], size, &fx);
  const int y = cell_of(point[1], size, &fy);
  const int z = cell_of(point[2], size, &fz);
  const unsigned char* v = volume + (z * size + y) * size + x;
  const int row = size, slice = size * size;
  const float c00 = lerp(v[0], v[1], fx), c10 = lerp(v[row], v[row + 1], fx);
  const float c01 = lerp(v[slice], v[slice + 1], fx), c11 = lerp(v[slice + row], v[slice + row + 1], fx);
  return lerp(lerp(c00, c10, fy), lerp(c01, c11, fy), fz);
}

template <class Decide>
__device__ void render_pixel(unsigned char* image, const unsigned char* volume, const RenderParams& p,
                             Decide decide) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= p.width || y >= p.height) return;
  const float u = (x + 0.5f) * (2.0f / p.width) - 1.0f;
  const float v = (y + 0.5f) * (2.0f / p.height) - 1.0f;
  const float length = sqrtf(u * u + v * v + p.focal_length * p.focal_length);
  const float inverse_length = 1.0f / length;
  const float dx = u * inverse_length, dy = v * inverse_length, dz = p.focal_length * inverse_length;
  const float direction[3] = {p.view_cos * dx + p.view_sin * dz, dy, p.view_cos * dz - p.view_sin * dx};
  const float origin[3] = {-p.view_sin * p.eye_distance, 0.0f, -p.view_cos * p.eye_distance};
  float t_near, t_far;
  if (!enter_box(origin, direction, &t_near, &t_far)) {
    image[y * p.width + x] = 0;
    return;
  }
  float colour = 0.0f, alpha = 0.0f, t = t_near;
  for (int i = 0; i < p.max_steps; ++i) {
    const float point[3] = {origin[0] + direction[0] * t, origin[1] + direction[1] * t,
                            origin[2] + direction[2] * t};
    const float density = sample_volume(volume, p.volume_size, point) * p.density_scale;
    const float weight = (1.0f - alpha) * (density * p.absorption);
    colour = colour + weight * density;
    alpha = alpha + weight;
    if (decide(alpha > p.opacity_threshold)) break;  // opaque
    t = t + p.step;
    if (decide(t > t_far)) break;  // far
  }
  image[y * p.width + x] = static_cast<unsigned char>(smaller(colour * p.brightness, 1.0f) * 255.0f);
}
