// Reference of workloads/ray_trace: the kernel's jittered camera rays, sphere and floor intersections, shadow
// rays and glossy bounces per pixel (the same xorshift32 sequence per pixel), with the same float operations
// in the same order (no contraction, IEEE division and square root), so the packed RGBA pixels match bit for
// bit.
#include <algorithm>
#include <cmath>

#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {
namespace {

constexpr int kSphereFloats = 8;
constexpr int kNone = -1;
constexpr int kFloor = -2;
constexpr float kFar = 1e4f;  // farther hits count as sky; keeps floor points well inside int range
constexpr float kEpsilon = 1e-3f;
constexpr float kAmbient = 0.1f;

struct Vec {
  float x, y, z;
};

Vec add(Vec a, Vec b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
Vec sub(Vec a, Vec b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
Vec scale(Vec a, float s) {
  return {a.x * s, a.y * s, a.z * s};
}
float dot(Vec a, Vec b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}

float hit_sphere(const float* sphere, Vec origin, Vec direction) {
  const Vec oc = sub(origin, Vec{sphere[0], sphere[1], sphere[2]});
  const float b = dot(oc, direction);
  const float c = dot(oc, oc) - sphere[3] * sphere[3];
  const float discriminant = b * b - c;
  const float root = std::sqrt(std::fmax(discriminant, 0.0f));
  const float t = -b - root > kEpsilon ? -b - root : -b + root;
  return discriminant >= 0.0f && t > kEpsilon ? t : -1.0f;
}

bool in_shadow(const float* spheres, int sphere_count, Vec point, Vec to_light, float light_distance) {
  bool occluded = false;
  for (int i = 0; i < sphere_count; ++i) {
    const float t = hit_sphere(spheres + i * kSphereFloats, point, to_light);
    occluded = occluded || (t > 0.0f && t < light_distance);
  }
  return occluded;
}

// The kernel's xorshift32 sequence and rejection-sampled ball points.
float uniform(uint32_t& state) {
  state ^= state << 13;
  state ^= state >> 17;
  state ^= state << 5;
  return static_cast<float>(state >> 8) * (1.0f / 16777216.0f);
}

Vec random_in_unit_ball(uint32_t& state) {
  Vec v;
  do {
    v.x = 2.0f * uniform(state) - 1.0f;
    v.y = 2.0f * uniform(state) - 1.0f;
    v.z = 2.0f * uniform(state) - 1.0f;
  } while (dot(v, v) > 1.0f);
  return v;
}

uint32_t to_byte(float c) {
  return static_cast<uint32_t>(std::min(c, 1.0f) * 255.0f);
}

struct Scene {
  const float* spheres;
  int sphere_count;
  int max_bounces;
  float floor_y, floor_reflectivity, roughness;
  Vec light;
};

Vec trace(const Scene& scene, Vec origin, Vec direction, uint32_t& state) {
  Vec colour{0.0f, 0.0f, 0.0f};
  float weight = 1.0f;
  for (int bounce = 0; bounce <= scene.max_bounces; ++bounce) {
    float nearest = kFar;
    int hit = kNone;
    for (int i = 0; i < scene.sphere_count; ++i) {
      const float t = hit_sphere(scene.spheres + i * kSphereFloats, origin, direction);
      if (t > 0.0f && t < nearest) {
        nearest = t;
        hit = i;
      }
    }
    if (direction.y < 0.0f) {
      const float t = (scene.floor_y - origin.y) / direction.y;
      if (t > kEpsilon && t < nearest) {
        nearest = t;
        hit = kFloor;
      }
    }
    if (hit == kNone) {
      const Vec sky{0.5f + 0.3f * direction.y, 0.6f + 0.3f * direction.y, 0.9f};
      return add(colour, scale(sky, weight));
    }
    const Vec point = add(origin, scale(direction, nearest));
    Vec normal, albedo;
    float reflectivity;
    if (hit == kFloor) {
      normal = {0.0f, 1.0f, 0.0f};
      const int cell = static_cast<int>(std::floor(point.x)) + static_cast<int>(std::floor(point.z));
      albedo = (cell & 1) ? Vec{0.9f, 0.9f, 0.9f} : Vec{0.2f, 0.2f, 0.25f};
      reflectivity = scene.floor_reflectivity;
    } else {
      const float* s = scene.spheres + hit * kSphereFloats;
      normal = scale(sub(point, Vec{s[0], s[1], s[2]}), 1.0f / s[3]);
      albedo = {s[4], s[5], s[6]};
      reflectivity = s[7];
    }
    const Vec lifted = add(point, scale(normal, kEpsilon));
    const Vec to_light = sub(scene.light, lifted);
    const float light_distance = std::sqrt(dot(to_light, to_light));
    const Vec light_direction = scale(to_light, 1.0f / light_distance);
    float lit = dot(normal, light_direction);
    if (lit <= 0.0f ||
        in_shadow(scene.spheres, scene.sphere_count, lifted, light_direction, light_distance)) {
      lit = 0.0f;
    }
    colour = add(colour, scale(albedo, weight * (kAmbient + lit)));
    if (reflectivity <= 0.0f) break;
    weight = weight * reflectivity;
    origin = lifted;
    direction = sub(direction, scale(normal, 2.0f * dot(direction, normal)));
    direction = add(direction, scale(random_in_unit_ball(state), scene.roughness));
    if (dot(direction, normal) <= 0.0f) break;
    direction = scale(direction, 1.0f / std::sqrt(dot(direction, direction)));
  }
  return colour;
}

}  // namespace

void ray_trace(const launch::Launch& launch, Buffers& buffers) {
  const int sphere_count = static_cast<int>(param_int(launch, 2));
  const int width = static_cast<int>(param_int(launch, 3));
  const int height = static_cast<int>(param_int(launch, 4));
  uint32_t* pixels =
      checked_param_buffer<uint32_t>(launch, buffers, 0, elements(width, height), "width x height");
  const float* spheres = checked_param_buffer<float>(
      launch, buffers, 1, elements(sphere_count, kSphereFloats), "8 floats per sphere");
  const Scene scene{spheres,
                    sphere_count,
                    static_cast<int>(param_int(launch, 5)),
                    param_f32(launch, 9),
                    param_f32(launch, 10),
                    param_f32(launch, 11),
                    {param_f32(launch, 12), param_f32(launch, 13), param_f32(launch, 14)}};
  const float x_origin = param_f32(launch, 6), y_origin = param_f32(launch, 7), step = param_f32(launch, 8);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      uint32_t state = static_cast<uint32_t>(y * width + x + 1) * 0x9e3779b9u;
      const Vec jitter = random_in_unit_ball(state);
      Vec direction{x_origin + (static_cast<float>(x) + 0.5f * jitter.x) * step,
                    y_origin - (static_cast<float>(y) + 0.5f * jitter.y) * step, -1.0f};
      direction = scale(direction, 1.0f / std::sqrt(dot(direction, direction)));
      const Vec c = trace(scene, {0.0f, 0.0f, 3.0f}, direction, state);
      pixels[y * width + x] = to_byte(c.x) | (to_byte(c.y) << 8) | (to_byte(c.z) << 16) | 0xff000000u;
    }
  }
}

}  // namespace simtlm::workloads
