// Reference of workloads/nbody: for each body, accelerations summed over j = 0..n-1 in order with
// the kernel's expression shapes, then the velocity and position update.
#include <cmath>

#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {

void nbody(const launch::Launch& launch, Buffers& buffers) {
  const float* positions = param_buffer<float>(launch, buffers, 0);  // float4 per body
  const float* masses = param_buffer<float>(launch, buffers, 1);
  float* velocities = param_buffer<float>(launch, buffers, 2);
  float* new_positions = param_buffer<float>(launch, buffers, 3);
  const int body_count = static_cast<int>(param_int(launch, 4));
  const float softening_squared = param_f32(launch, 5);
  const float time_step = param_f32(launch, 6);
  const int threads = static_cast<int>(launch.grid.x * launch.block.x);
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
