// Reference of workloads/particles: replays the launch sequence's repeat loop step by step: keys (cell,
// index) sorted, cell ranges, the gathered copies, the 27-cell collision pass in the kernel's neighbour and
// pair order, then integration with the walls; the same float operations in the same order. Parameters come
// from the launch file's first launch of each kernel.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "workloads/reference/sequence_params.hpp"
#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {
namespace {

constexpr uint32_t kEmptyCell = 0xffffffffu;
constexpr int kIndexBits = 16;
constexpr int kMaxParticles = 1024;  // sort_keys sorts one key per thread of one CTA

float larger(float a, float b) {
  return a > b ? a : b;
}

int grid_coordinate(float position, int grid_size, float inverse_cell_size) {
  const int c = static_cast<int>(std::floor((position + 1.0f) * inverse_cell_size));
  return c < 0 ? 0 : (c >= grid_size ? grid_size - 1 : c);
}

int cell_of(const float* p, int grid_size, float inverse_cell_size) {
  const int x = grid_coordinate(p[0], grid_size, inverse_cell_size);
  const int y = grid_coordinate(p[1], grid_size, inverse_cell_size);
  const int z = grid_coordinate(p[2], grid_size, inverse_cell_size);
  return (z * grid_size + y) * grid_size + x;
}

struct Constants {
  int n, grid_size;
  float inverse_cell_size, collide_distance, spring, damping, shear;
  float dt, gravity, global_damping, boundary_damping, radius;
};

Constants read_constants(const launch::Launch& launch) {
  Constants c{};
  c.n = static_cast<int>(sequence_param_int(launch, "collide", 6));
  c.grid_size = static_cast<int>(sequence_param_int(launch, "collide", 7));
  c.inverse_cell_size = sequence_param_f32(launch, "collide", 8);
  c.collide_distance = sequence_param_f32(launch, "collide", 9);
  c.spring = sequence_param_f32(launch, "collide", 10);
  c.damping = sequence_param_f32(launch, "collide", 11);
  c.shear = sequence_param_f32(launch, "collide", 12);
  c.dt = sequence_param_f32(launch, "integrate", 3);
  c.gravity = sequence_param_f32(launch, "integrate", 4);
  c.global_damping = sequence_param_f32(launch, "integrate", 5);
  c.boundary_damping = sequence_param_f32(launch, "integrate", 6);
  c.radius = sequence_param_f32(launch, "integrate", 7);
  if (c.n < 1 || c.n > kMaxParticles || (c.n & (c.n - 1)) != 0) {
    reference_error(launch, "n must be a power of two up to " + std::to_string(kMaxParticles) +
                                " (one CTA sorts the keys), not " + std::to_string(c.n));
  }
  if (c.grid_size < 1 || c.grid_size > 1024) {
    reference_error(launch, "grid_size must be in [1, 1024], not " + std::to_string(c.grid_size));
  }
  const auto cells = uint64_t(c.grid_size) * c.grid_size * c.grid_size;
  if (cells >= (uint64_t{1} << (32 - kIndexBits))) {
    reference_error(launch, "grid_size^3 cells must fit in the key's 16 cell bits");
  }
  return c;
}

// The steps of the launch file's top-level repeat: the reference replays that many simulation steps.
uint64_t simulation_steps(const launch::Launch& launch) {
  for (const launch::Step& step : launch.steps) {
    if (step.kind == launch::Step::Kind::repeat) return step.count;
  }
  reference_error(launch, "the launch sequence needs a top-level repeat of the simulation steps");
}

void wall(float* position, float* velocity, float lower, float upper, float boundary_damping) {
  if (*position > upper) {
    *position = upper;
    *velocity = *velocity * boundary_damping;
  }
  if (*position < lower) {
    *position = lower;
    *velocity = *velocity * boundary_damping;
  }
}

}  // namespace

void particles(const launch::Launch& launch, Buffers& buffers) {
  const Constants c = read_constants(launch);
  const uint64_t n = static_cast<uint64_t>(c.n);
  const uint64_t cells = uint64_t(c.grid_size) * c.grid_size * c.grid_size;
  float* positions = checked_view<float>(launch, buffers, "positions", 4 * n, "a float4 per particle");
  float* velocities = checked_view<float>(launch, buffers, "velocities", 4 * n, "a float4 per particle");
  float* sorted_positions =
      checked_view<float>(launch, buffers, "sorted_positions", 4 * n, "a float4 per particle");
  float* sorted_velocities =
      checked_view<float>(launch, buffers, "sorted_velocities", 4 * n, "a float4 per particle");
  uint32_t* keys = checked_view<uint32_t>(launch, buffers, "keys", n, "one per particle");
  uint32_t* cell_start = checked_view<uint32_t>(launch, buffers, "cell_start", cells, "one per grid cell");
  uint32_t* cell_end = checked_view<uint32_t>(launch, buffers, "cell_end", cells, "one per grid cell");
  const uint64_t steps = simulation_steps(launch);
  for (uint64_t step = 0; step < steps; ++step) {
    std::fill(cell_start, cell_start + cells, kEmptyCell);
    for (int i = 0; i < c.n; ++i) {
      keys[i] = static_cast<uint32_t>(cell_of(positions + 4 * i, c.grid_size, c.inverse_cell_size))
                    << kIndexBits |
                static_cast<uint32_t>(i);
    }
    std::sort(keys, keys + n);
    for (int i = 0; i < c.n; ++i) {
      const uint32_t cell = keys[i] >> kIndexBits;
      if (i == 0 || keys[i - 1] >> kIndexBits != cell) {
        cell_start[cell] = static_cast<uint32_t>(i);
        if (i > 0) cell_end[keys[i - 1] >> kIndexBits] = static_cast<uint32_t>(i);
      }
      if (i == c.n - 1) cell_end[cell] = static_cast<uint32_t>(c.n);
      const uint32_t index = keys[i] & ((1u << kIndexBits) - 1);
      std::copy_n(positions + 4 * index, 4, sorted_positions + 4 * i);
      std::copy_n(velocities + 4 * index, 4, sorted_velocities + 4 * i);
    }
    for (int i = 0; i < c.n; ++i) {
      const float* p = sorted_positions + 4 * i;
      const float* v = sorted_velocities + 4 * i;
      const int x = grid_coordinate(p[0], c.grid_size, c.inverse_cell_size);
      const int y = grid_coordinate(p[1], c.grid_size, c.inverse_cell_size);
      const int z = grid_coordinate(p[2], c.grid_size, c.inverse_cell_size);
      float fx = 0.0f, fy = 0.0f, fz = 0.0f;
      for (int dz = -1; dz <= 1; ++dz) {
        for (int dy = -1; dy <= 1; ++dy) {
          for (int dx = -1; dx <= 1; ++dx) {
            const int cx = x + dx, cy = y + dy, cz = z + dz;
            if (cx < 0 || cy < 0 || cz < 0 || cx >= c.grid_size || cy >= c.grid_size || cz >= c.grid_size)
              continue;
            const int cell = (cz * c.grid_size + cy) * c.grid_size + cx;
            if (cell_start[cell] == kEmptyCell) continue;
            for (uint32_t j = cell_start[cell]; j < cell_end[cell]; ++j) {
              if (j == static_cast<uint32_t>(i)) continue;
              const float* q = sorted_positions + 4 * j;
              const float rx = q[0] - p[0], ry = q[1] - p[1], rz = q[2] - p[2];
              const float distance = std::sqrt(rx * rx + ry * ry + rz * rz);
              if (!(distance < c.collide_distance)) continue;
              const float inverse = 1.0f / distance;
              const float nx = rx * inverse, ny = ry * inverse, nz = rz * inverse;
              const float* w = sorted_velocities + 4 * j;
              const float ux = w[0] - v[0], uy = w[1] - v[1], uz = w[2] - v[2];
              const float along = ux * nx + uy * ny + uz * nz;
              const float push = -c.spring * larger(c.collide_distance - distance, 0.0f);
              fx = fx + (push * nx + c.damping * ux + c.shear * (ux - along * nx));
              fy = fy + (push * ny + c.damping * uy + c.shear * (uy - along * ny));
              fz = fz + (push * nz + c.damping * uz + c.shear * (uz - along * nz));
            }
          }
        }
      }
      float* out = velocities + 4 * (keys[i] & ((1u << kIndexBits) - 1));
      out[0] = v[0] + fx;
      out[1] = v[1] + fy;
      out[2] = v[2] + fz;
      out[3] = v[3];
    }
    const float lower = c.radius - 1.0f, upper = 1.0f - c.radius;
    for (int i = 0; i < c.n; ++i) {
      float* p = positions + 4 * i;
      float* v = velocities + 4 * i;
      v[1] = v[1] + c.gravity * c.dt;
      v[0] = v[0] * c.global_damping;
      v[1] = v[1] * c.global_damping;
      v[2] = v[2] * c.global_damping;
      p[0] = p[0] + v[0] * c.dt;
      p[1] = p[1] + v[1] * c.dt;
      p[2] = p[2] + v[2] * c.dt;
      for (int axis = 0; axis < 3; ++axis) wall(p + axis, v + axis, lower, upper, c.boundary_damping);
    }
  }
}

}  // namespace simtlm::workloads
