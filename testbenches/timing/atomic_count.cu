// Global atomics on one word (testbenches/timing/test_timing_atomics.cpp). count_hits is a one-bin
// histogram: every thread adds 1 to the bin. claim_slots is a work queue's claim: each thread takes the old
// value of a shared counter as its slot and marks it, so the marks are all 1 exactly when every old value
// returned was distinct and in range, whatever order the atomics ran in.
extern "C" __global__ void count_hits(unsigned int* count) { atomicAdd(count, 1u); }

extern "C" __global__ void claim_slots(unsigned int* next, unsigned int* claimed) {
  unsigned int slot = atomicAdd(next, 1u);
  claimed[slot] += 1u;
}
