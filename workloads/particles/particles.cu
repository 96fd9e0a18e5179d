// Particle collisions on a uniform grid (branch-data-herding paper, particles): see particles.cuh. The pair
// test diverges on which neighbours touch, the neighbour loops on cell occupancy and the grid edge; nvcc
// turns the wall tests into selects.
#include "particles.cuh"

struct OwnCondition {
  __device__ bool operator()(bool condition) const { return condition; }
};

PARTICLE_KERNELS(OwnCondition)
