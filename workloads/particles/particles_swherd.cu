// particles with software branch herding on the particle-pair contact test and the six wall tests (the
// collision checks the paper herds): every lane follows the strict majority of the warp's active lanes.
// The positions and velocities differ from particles' on purpose.
#include "particles.cuh"

__device__ bool herd(bool condition) {
  const unsigned lanes = __activemask();
  return 2 * __popc(__ballot_sync(lanes, condition)) > __popc(lanes);
}

struct Herd {
  __device__ bool operator()(bool condition) const { return herd(condition); }
};

PARTICLE_KERNELS(Herd)
