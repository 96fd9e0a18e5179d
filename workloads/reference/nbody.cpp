// Reference of workloads/nbody: for each body, accelerations summed over j = 0..n-1 in order with
// the kernel's expression shapes, then the velocity and position update.
#include <algorithm>
#include <cmath>

#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {

void nbody(const launch::Launch& launch, Buffers& buffers) {
  const int body_count = static_cast<int>(param_int(launch, 4));
  const float softening_squared = param_f32(launch, 5);
  const float time_step = param_f32(launch, 6);
  const uint64_t thread_count = uint64_t{launch.grid.x} * launch.block.x;
  const uint64_t bodies = std::max<uint64_t>(elements(body_count), thread_count);
  if (thread_count > INT32_MAX) reference_error(launch, "more than 2^31 - 1 threads");
  const int threads = static_cast<int>(thread_count);
  const float* positions = checked_param_buffer<float>(
      launch, buffers, 0, 4 * bodies, "a float4 per body and per thread");  // float4 per body
  const float* masses = checked_param_buffer<float>(launch, buffers, 1, elements(body_count), "one per body");
  float* velocities =
      checked_param_buffer<float>(launch, buffers, 2, 4 * thread_count, "a float4 per thread");
  float* new_positions =
      checked_param_buffer<float>(launch, buffers, 3, 4 * thread_count, "a float4 per thread");
  for (int i = 0; i < threads; ++i) {
    const float* me = positions + 4 * i;
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int j = 0; j < body_count; ++j) {
      const float* other = positions + 4 * j;
      const float dx = other[0] - me[0], dy = other[1] - me[1], dz = other[2] - me[2];
      const float distance_squared = dx * dx + dy * dy + dz * dz + softening_squared;
      const float inverse_distance = 1.0f / std::sqrt(distance_squared);
      const float strength = masses[j] * (inverse_distance * inverse_distance * inverse_distance);
      ax += dx * strength;
      ay += dy * strength;
      az += dz * strength;
    }
    float* velocity = velocities + 4 * i;
    velocity[0] += ax * time_step;
    velocity[1] += ay * time_step;
    velocity[2] += az * time_step;
    float* out = new_positions + 4 * i;
    out[0] = me[0] + velocity[0] * time_step;
    out[1] = me[1] + velocity[1] * time_step;
    out[2] = me[2] + velocity[2] * time_step;
    out[3] = me[3];
  }
}

}  // namespace simtlm::workloads
