// Locks as CUDA code written for sm_70+ takes them. naive_lock: every thread spins on atomicCAS itself; on a
// reconvergence stack the lane that won waits at the loop's exit for lanes that spin on the lock it holds,
// so the CTA livelocks. counted_spin: a spin that makes progress (the counter it reads grows) and ends.
__global__ void naive_lock(int* mutex, int* counter) {
  while (atomicCAS(mutex, 0, 1) != 0) {
  }
  *(volatile int*)counter += 1;
  __threadfence();
  atomicExch(mutex, 0);
}

__global__ void counted_spin(int* ticks, int limit) {
  if (threadIdx.x % 32 == 0) {
    while (atomicAdd(ticks, 1) < limit) {
    }
  }
}
