// Reference of workloads/lu: replays lu_make_dominant and every lu_column / lu_update launch of the sequence
// with its own n and k (repeats unrolled), with the kernels' float operations (IEEE division, no
// contraction).
#include "workloads/reference/sequence_replay.hpp"
#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {
namespace {

float* matrix(const ReplayedLaunch& step, Buffers& buffers, int& n) {
  const int64_t size = step.integer(1);
  if (size < 1 || size > 8192)
    reference_error(step.launch, "n of the " + step.where() + " must be in [1, 8192]");
  n = static_cast<int>(size);
  return checked_view<float>(step.launch, buffers, step.buffer(0), elements(size, size), "n x n");
}

int pivot_step(const ReplayedLaunch& step, int n) {
  const int64_t k = step.integer(2);
  if (k < 0 || k >= n) reference_error(step.launch, "k of the " + step.where() + " must be in [0, n)");
  return static_cast<int>(k);
}

}  // namespace

void lu(const launch::Launch& launch, Buffers& buffers) {
  replay_sequence(launch, [&](const ReplayedLaunch& step) {
    int n = 0;
    if (step.step.kernel == "lu_make_dominant") {
      float* a = matrix(step, buffers, n);
      const float shift = step.f32(2);
      for (int d = 0; d < n; ++d) a[d * n + d] = a[d * n + d] + shift;
    } else if (step.step.kernel == "lu_column") {
      float* a = matrix(step, buffers, n);
      const int k = pivot_step(step, n);
      for (int i = k + 1; i < n; ++i) a[i * n + k] = a[i * n + k] / a[k * n + k];
    } else if (step.step.kernel == "lu_update") {
      float* a = matrix(step, buffers, n);
      const int k = pivot_step(step, n);
      // Every task reads only row k and column k, which the launch does not write: any order is the same.
      for (int i = k + 1; i < n; ++i)
        for (int j = k + 1; j < n; ++j) a[i * n + j] = a[i * n + j] - a[i * n + k] * a[k * n + j];
    } else {
      reference_error(launch, "the " + step.where() + " is not a kernel of lu.ptx");
    }
  });
}

}  // namespace simtlm::workloads
