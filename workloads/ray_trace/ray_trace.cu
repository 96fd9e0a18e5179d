// A small Whitted-style ray tracer, one thread per pixel: spheres from a buffer (8 floats each: centre,
// radius, colour, reflectivity) over a checkered floor plane, one point light with a shadow ray per hit and
// at most `max_bounces` mirror bounces. Only + - * / sqrt and floor: with IEEE division and square root and
// no FMA contraction the host reference reproduces every pixel bit for bit. Where lanes part: a primary ray
// hits the scene or the sky; the shadow loop stops at the first occluder; a reflective hit bounces again
// while a matte one (or the sky) ends the loop, so trip counts differ per pixel.

constexpr int kSphereFloats = 8;
constexpr int kNone = -1;
constexpr int kFloor = -2;
constexpr float kFar = 1e4f;       // farther hits count as sky; keeps floor points well inside int range
constexpr float kEpsilon = 1e-3f;  // keeps secondary rays from hitting the surface they leave
constexpr float kAmbient = 0.1f;

struct Vec {
  float x, y, z;
};

__device__ Vec add(Vec a, Vec b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
__device__ Vec sub(Vec a, Vec b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
__device__ Vec scale(Vec a, float s) {
  return {a.x * s, a.y * s, a.z * s};
}
__device__ float dot(Vec a, Vec b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}

// Distance along a unit direction to the nearer intersection beyond kEpsilon, or -1 for none.
__device__ float hit_sphere(const float* sphere, Vec origin, Vec direction) {
  const Vec oc = sub(origin, Vec{sphere[0], sphere[1], sphere[2]});
  const float b = dot(oc, direction);
  const float c = dot(oc, oc) - sphere[3] * sphere[3];
  const float discriminant = b * b - c;
  // Selects rather than early returns: the sphere loops stay branch-free, and lanes part only where the
  // tracer's control flow does (hit or sky, shadow, bounces).
  const float root = sqrtf(fmaxf(discriminant, 0.0f));
  const float t = -b - root > kEpsilon ? -b - root : -b + root;
  return discriminant >= 0.0f && t > kEpsilon ? t : -1.0f;
}

// Every sphere is tested (no early exit): the test is cheap next to a branch per sphere that all lanes agree
// on.
__device__ bool in_shadow(const float* spheres, int sphere_count, Vec point, Vec to_light,
                          float light_distance) {
  bool occluded = false;
  for (int i = 0; i < sphere_count; ++i) {
    const float t = hit_sphere(spheres + i * kSphereFloats, point, to_light);
    occluded = occluded || (t > 0.0f && t < light_distance);
  }
  return occluded;
}

// xorshift32: a per-pixel sequence, so the glossy bounces are reproducible on the host.
__device__ float uniform(unsigned& state) {
  state ^= state << 13;
  state ^= state >> 17;
  state ^= state << 5;
  return static_cast<float>(state >> 8) * (1.0f / 16777216.0f);
}

// Rejection sampling: about half of the draws from the cube fall in the ball, so lanes loop 1, 2, 3... times.
__device__ Vec random_in_unit_ball(unsigned& state) {
  Vec v;
  do {
    v.x = 2.0f * uniform(state) - 1.0f;
    v.y = 2.0f * uniform(state) - 1.0f;
    v.z = 2.0f * uniform(state) - 1.0f;
  } while (dot(v, v) > 1.0f);
  return v;
}

__device__ unsigned to_byte(float c) {
  return static_cast<unsigned>(fminf(c, 1.0f) * 255.0f);
}

extern "C" __global__ void ray_trace(unsigned* pixels, const float* spheres, int sphere_count, int width,
                                     int height, int max_bounces, float x_origin, float y_origin, float step,
                                     float floor_y, float floor_reflectivity, float roughness, float light_x,
                                     float light_y, float light_z) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const Vec light{light_x, light_y, light_z};
  unsigned state = static_cast<unsigned>(y * width + x + 1) * 0x9e3779b9u;
  Vec origin{0.0f, 0.0f, 3.0f};
  // A jittered sample around the pixel centre (anti-aliasing), drawn like the glossy bounces.
  const Vec jitter = random_in_unit_ball(state);
  Vec direction{x_origin + (static_cast<float>(x) + 0.5f * jitter.x) * step,
                y_origin - (static_cast<float>(y) + 0.5f * jitter.y) * step, -1.0f};
  direction = scale(direction, 1.0f / sqrtf(dot(direction, direction)));
  Vec colour{0.0f, 0.0f, 0.0f};
  float weight = 1.0f;
  for (int bounce = 0; bounce <= max_bounces; ++bounce) {
    float nearest = kFar;
    int hit = kNone;
    for (int i = 0; i < sphere_count; ++i) {
      const float t = hit_sphere(spheres + i * kSphereFloats, origin, direction);
      if (t > 0.0f && t < nearest) {
        nearest = t;
        hit = i;
      }
    }
    if (direction.y < 0.0f) {
      const float t = (floor_y - origin.y) / direction.y;
      if (t > kEpsilon && t < nearest) {
        nearest = t;
        hit = kFloor;
      }
    }
    if (hit == kNone) {
      const Vec sky{0.5f + 0.3f * direction.y, 0.6f + 0.3f * direction.y, 0.9f};
      colour = add(colour, scale(sky, weight));
      break;
    }
    const Vec point = add(origin, scale(direction, nearest));
    Vec normal, albedo;
    float reflectivity;
    if (hit == kFloor) {
      normal = {0.0f, 1.0f, 0.0f};
      const int cell = static_cast<int>(floorf(point.x)) + static_cast<int>(floorf(point.z));
      albedo = (cell & 1) ? Vec{0.9f, 0.9f, 0.9f} : Vec{0.2f, 0.2f, 0.25f};
      reflectivity = floor_reflectivity;
    } else {
      const float* s = spheres + hit * kSphereFloats;
      normal = scale(sub(point, Vec{s[0], s[1], s[2]}), 1.0f / s[3]);
      albedo = {s[4], s[5], s[6]};
      reflectivity = s[7];
    }
    const Vec lifted = add(point, scale(normal, kEpsilon));
    const Vec to_light = sub(light, lifted);
    const float light_distance = sqrtf(dot(to_light, to_light));
    const Vec light_direction = scale(to_light, 1.0f / light_distance);
    float lit = dot(normal, light_direction);
    if (lit <= 0.0f || in_shadow(spheres, sphere_count, lifted, light_direction, light_distance)) lit = 0.0f;
    colour = add(colour, scale(albedo, weight * (kAmbient + lit)));
    if (reflectivity <= 0.0f) break;
    weight = weight * reflectivity;
    origin = lifted;
    // Glossy mirror: the mirror direction perturbed by a random point of a ball; a ray pushed below the
    // surface is absorbed.
    direction = sub(direction, scale(normal, 2.0f * dot(direction, normal)));
    direction = add(direction, scale(random_in_unit_ball(state), roughness));
    if (dot(direction, normal) <= 0.0f) break;
    direction = scale(direction, 1.0f / sqrtf(dot(direction, direction)));
  }
  pixels[y * width + x] =
      to_byte(colour.x) | (to_byte(colour.y) << 8) | (to_byte(colour.z) << 16) | 0xff000000u;
}
