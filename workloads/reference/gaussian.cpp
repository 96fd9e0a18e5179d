// Reference of workloads/gaussian: the same float operations in the same order as make_dominant, then
// Fan1 and Fan2 for every pivot row (no contraction: a[i][j] - (m * a[t][j]) rounds twice, as the kernel).
#include "workloads/reference/sequence_params.hpp"
#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {

void gaussian(const launch::Launch& launch, Buffers& buffers) {
  float* a = view<float>(buffers, "a");
  float* b = view<float>(buffers, "b");
  float* m = view<float>(buffers, "m");
  const auto n = static_cast<int>(count_of<float>(buffers, "b"));
  const float shift = sequence_param_f32(launch, "make_dominant", 2);
  for (int i = 0; i < n; ++i) a[i * n + i] += shift;
  for (int t = 0; t < n - 1; ++t) {
    for (int row = t + 1; row < n; ++row) m[n * row + t] = a[n * row + t] / a[n * t + t];
    for (int row = t + 1; row < n; ++row) {
      const float multiplier = m[n * row + t];
      for (int col = t; col < n; ++col) a[n * row + col] -= multiplier * a[n * t + col];
      b[row] -= multiplier * b[t];
    }
  }
}

}  // namespace simtlm::workloads
