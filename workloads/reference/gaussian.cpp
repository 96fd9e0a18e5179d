// Reference of workloads/gaussian: the same float operations in the same order as make_dominant, then
// Fan1 and Fan2 for every pivot row (no contraction: a[i][j] - (m * a[t][j]) rounds twice, as the kernel).
#include "workloads/reference/sequence_params.hpp"
#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {

void gaussian(const launch::Launch& launch, Buffers& buffers) {
  const uint64_t size = buffers.count("b") ? count_of<float>(buffers, "b") : 0;
  float* b = checked_view<float>(launch, buffers, "b", size, "");
  float* a = checked_view<float>(launch, buffers, "a", size * size, "n x n for the n elements of b");
  float* m = checked_view<float>(launch, buffers, "m", size * size, "n x n for the n elements of b");
  const auto n = static_cast<int>(size);
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
