// One all-pairs n-body step (Plummer softening). Bodies are staged through shared memory one
// CTA-sized tile at a time; every thread sums j = 0..n-1 in order, so the host matches bit for
// bit. 1.0f / sqrtf is IEEE here (-prec-div/-prec-sqrt), unlike rsqrtf. Requires n % blockDim.x == 0.

constexpr int kMaxBlock = 256;

extern "C" __global__ void nbody_step(const float4* positions, const float* masses, float4* velocities,
                                      float4* new_positions, int body_count, float softening_squared,
                                      float time_step) {
  __shared__ float4 tile[kMaxBlock];
  __shared__ float tile_mass[kMaxBlock];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float4 me = positions[i];
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
  for (int base = 0; base < body_count; base += blockDim.x) {
    tile[threadIdx.x] = positions[base + threadIdx.x];
    tile_mass[threadIdx.x] = masses[base + threadIdx.x];
    __syncthreads();
    for (int j = 0; j < blockDim.x; ++j) {
      const float dx = tile[j].x - me.x, dy = tile[j].y - me.y, dz = tile[j].z - me.z;
      const float distance_squared = dx * dx + dy * dy + dz * dz + softening_squared;
      const float inverse_distance = 1.0f / sqrtf(distance_squared);
      const float strength = tile_mass[j] * (inverse_distance * inverse_distance * inverse_distance);
      ax += dx * strength;
      ay += dy * strength;
      az += dz * strength;
    }
    __syncthreads();
  }
  float4 velocity = velocities[i];
  velocity.x += ax * time_step;
  velocity.y += ay * time_step;
  velocity.z += az * time_step;
  velocities[i] = velocity;
  new_positions[i] = make_float4(me.x + velocity.x * time_step, me.y + velocity.y * time_step,
                                 me.z + velocity.z * time_step, me.w);
}
