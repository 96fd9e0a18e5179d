// Uniform-grid particle collisions shared by particles.cu (exact) and particles_swherd.cu (software branch
// herding). One simulation step is five kernels: hash each particle to its grid cell, sort the (cell, index)
// keys, find every cell's range in the sorted order (and gather the particles in that order), collide each
// particle with the particles of its 27 neighbour cells, then integrate with gravity and the walls of the box
// [-1, 1]^3. The pair test "closer than collide_distance" and the six wall tests go through Decide: the
// lane's own condition, or the warp's majority vote on it.
#pragma once

constexpr unsigned kEmptyCell = 0xffffffffu;
constexpr int kIndexBits = 16;  // a key is cell << 16 | particle index
constexpr unsigned kIndexMask = (1u << kIndexBits) - 1;
constexpr int kMaxSortedKeys = 1024;  // sort_keys runs in one CTA, one key per thread

__device__ inline float larger(float a, float b) {
  return a > b ? a : b;
}

__device__ inline int grid_coordinate(float position, int grid_size, float inverse_cell_size) {
  const int c = static_cast<int>(floorf((position + 1.0f) * inverse_cell_size));
  return c < 0 ? 0 : (c >= grid_size ? grid_size - 1 : c);
}

__device__ inline void hash_particle(unsigned* keys, const float4* positions, int n, int grid_size,
                                     float inverse_cell_size) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float4 p = positions[i];
  const int x = grid_coordinate(p.x, grid_size, inverse_cell_size);
  const int y = grid_coordinate(p.y, grid_size, inverse_cell_size);
  const int z = grid_coordinate(p.z, grid_size, inverse_cell_size);
  keys[i] = static_cast<unsigned>((z * grid_size + y) * grid_size + x) << kIndexBits | i;
}

// Bitonic sort of n = blockDim.x keys (a power of two up to kMaxSortedKeys) in shared memory. Keys are
// unique (they hold the particle index), so the result is the one sorted order.
__device__ inline void sort_keys_in_cta(unsigned* keys, int n) {
  __shared__ unsigned shared_keys[kMaxSortedKeys];
  const int i = threadIdx.x;
  shared_keys[i] = keys[i];
  __syncthreads();
  for (int size = 2; size <= n; size <<= 1) {
    for (int stride = size >> 1; stride > 0; stride >>= 1) {
      const int partner = i ^ stride;
      if (partner > i) {
        const unsigned a = shared_keys[i], b = shared_keys[partner];
        if ((a > b) == ((i & size) == 0)) {
          shared_keys[i] = b;
          shared_keys[partner] = a;
        }
      }
      __syncthreads();
    }
  }
  keys[i] = shared_keys[i];
}

// cell_start must hold kEmptyCell everywhere before (the launch file sets it each step).
__device__ inline void cell_bounds(unsigned* cell_start, unsigned* cell_end, float4* sorted_positions,
                                   float4* sorted_velocities, const unsigned* keys, const float4* positions,
                                   const float4* velocities, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned key = keys[i], cell = key >> kIndexBits;
  if (i == 0 || keys[i - 1] >> kIndexBits != cell) {
    cell_start[cell] = i;
    if (i > 0) cell_end[keys[i - 1] >> kIndexBits] = i;
  }
  if (i == n - 1) cell_end[cell] = n;
  sorted_positions[i] = positions[key & kIndexMask];
  sorted_velocities[i] = velocities[key & kIndexMask];
}

struct CollideParams {
  int n, grid_size;
  float inverse_cell_size, collide_distance, spring, damping, shear;
};

// The spring pushes apart by the overlap; the overlap is clamped at 0 so that a herded "contact" between
// particles that do not touch gets damping and shear but no pull.
template <class Decide>
__device__ void collide_particle(float4* velocities, const float4* sorted_positions,
                                 const float4* sorted_velocities, const unsigned* keys,
                                 const unsigned* cell_start, const unsigned* cell_end, const CollideParams& c,
                                 Decide decide) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= c.n) return;
  const float4 p = sorted_positions[i], v = sorted_velocities[i];
  const int x = grid_coordinate(p.x, c.grid_size, c.inverse_cell_size);
  const int y = grid_coordinate(p.y, c.grid_size, c.inverse_cell_size);
  const int z = grid_coordinate(p.z, c.grid_size, c.inverse_cell_size);
  float fx = 0.0f, fy = 0.0f, fz = 0.0f;
  for (int dz = -1; dz <= 1; ++dz) {
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dx = -1; dx <= 1; ++dx) {
        const int cx = x + dx, cy = y + dy, cz = z + dz;
        if (cx < 0 || cy < 0 || cz < 0 || cx >= c.grid_size || cy >= c.grid_size || cz >= c.grid_size)
          continue;
        const int cell = (cz * c.grid_size + cy) * c.grid_size + cx;
        const unsigned start = cell_start[cell];
        if (start == kEmptyCell) continue;
        const unsigned end = cell_end[cell];
        for (unsigned j = start; j < end; ++j) {
          if (j == static_cast<unsigned>(i)) continue;
          const float4 q = sorted_positions[j];
          const float rx = q.x - p.x, ry = q.y - p.y, rz = q.z - p.z;
          const float distance = sqrtf(rx * rx + ry * ry + rz * rz);
          if (decide(distance < c.collide_distance)) {
            const float inverse = 1.0f / distance;
            const float nx = rx * inverse, ny = ry * inverse, nz = rz * inverse;
            const float4 w = sorted_velocities[j];
            const float ux = w.x - v.x, uy = w.y - v.y, uz = w.z - v.z;
            const float along = ux * nx + uy * ny + uz * nz;
            const float push = -c.spring * larger(c.collide_distance - distance, 0.0f);
            fx = fx + (push * nx + c.damping * ux + c.shear * (ux - along * nx));
            fy = fy + (push * ny + c.damping * uy + c.shear * (uy - along * ny));
            fz = fz + (push * nz + c.damping * uz + c.shear * (uz - along * nz));
          }
        }
      }
    }
  }
  velocities[keys[i] & kIndexMask] = make_float4(v.x + fx, v.y + fy, v.z + fz, v.w);
}

struct IntegrateParams {
  int n;
  float dt, gravity, global_damping, boundary_damping, radius;
};

template <class Decide>
__device__ inline void wall(float* position, float* velocity, float lower, float upper,
                            float boundary_damping, Decide decide) {
  if (decide(*position > upper)) {
    *position = upper;
    *velocity = *velocity * boundary_damping;
  }
  if (decide(*position < lower)) {
    *position = lower;
    *velocity = *velocity * boundary_damping;
  }
}

template <class Decide>
__device__ void integrate_particle(float4* positions, float4* velocities, const IntegrateParams& g,
                                   Decide decide) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= g.n) return;
  float4 p = positions[i], v = velocities[i];
  v.y = v.y + g.gravity * g.dt;
  v.x = v.x * g.global_damping;
  v.y = v.y * g.global_damping;
  v.z = v.z * g.global_damping;
  p.x = p.x + v.x * g.dt;
  p.y = p.y + v.y * g.dt;
  p.z = p.z + v.z * g.dt;
  const float lower = g.radius - 1.0f, upper = 1.0f - g.radius;
  wall(&p.x, &v.x, lower, upper, g.boundary_damping, decide);
  wall(&p.y, &v.y, lower, upper, g.boundary_damping, decide);
  wall(&p.z, &v.z, lower, upper, g.boundary_damping, decide);
  positions[i] = p;
  velocities[i] = v;
}

// The kernels, with the same entry names in both modules so that the two launch files differ only in ptx:.
#define PARTICLE_KERNELS(DECIDE)                                                                            \
  extern "C" __global__ void hash_particles(unsigned* keys, const float4* positions, int n, int grid_size,  \
                                            float inverse_cell_size) {                                      \
    hash_particle(keys, positions, n, grid_size, inverse_cell_size);                                        \
  }                                                                                                         \
  extern "C" __global__ void sort_keys(unsigned* keys, int n) {                                             \
    sort_keys_in_cta(keys, n);                                                                              \
  }                                                                                                         \
  extern "C" __global__ void find_cell_bounds(                                                              \
      unsigned* cell_start, unsigned* cell_end, float4* sorted_positions, float4* sorted_velocities,        \
      const unsigned* keys, const float4* positions, const float4* velocities, int n) {                     \
    cell_bounds(cell_start, cell_end, sorted_positions, sorted_velocities, keys, positions, velocities, n); \
  }                                                                                                         \
  extern "C" __global__ void collide(                                                                       \
      float4* velocities, const float4* sorted_positions, const float4* sorted_velocities,                  \
      const unsigned* keys, const unsigned* cell_start, const unsigned* cell_end, int n, int grid_size,     \
      float inverse_cell_size, float collide_distance, float spring, float damping, float shear) {          \
    const CollideParams params{n, grid_size, inverse_cell_size, collide_distance, spring, damping, shear};  \
    collide_particle(velocities, sorted_positions, sorted_velocities, keys, cell_start, cell_end, params,   \
                     DECIDE{});                                                                             \
  }                                                                                                         \
  extern "C" __global__ void integrate(float4* positions, float4* velocities, int n, float dt,              \
                                       float gravity, float global_damping, float boundary_damping,         \
                                       float radius) {                                                      \
    const IntegrateParams params{n, dt, gravity, global_damping, boundary_damping, radius};                 \
    integrate_particle(positions, velocities, params, DECIDE{});                                            \
  }
