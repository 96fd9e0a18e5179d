// Reference of workloads/eigen_bisect: per matrix and eigenvalue index, the kernel's Gershgorin interval and
// its halvings on early-exit Sturm counts, with the same float operations in the same order; slots past a
// matrix's size (or without a thread in the grid) are not written.
#include <cmath>

#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {
namespace {

constexpr float kPivotMin = 1e-30f;

bool more_than_k_below(const float* diagonal, const float* coupling, int n, float x, int k) {
  int negative = 0;
  float pivot = diagonal[0] - x;
  for (int i = 1;; ++i) {
    if (pivot < kPivotMin && pivot > -kPivotMin) pivot = -kPivotMin;
    if (pivot < 0.0f) ++negative;
    if (negative > k || i == n) break;
    pivot = (diagonal[i] - x) - coupling[i - 1] * coupling[i - 1] / pivot;
  }
  return negative > k;
}

struct Tolerance {
  float absolute, relative;
  int max_iterations;
};

}  // namespace

void eigen_bisect(const launch::Launch& launch, Buffers& buffers) {
  const int matrix_count = static_cast<int>(param_int(launch, 3));
  const int stride = static_cast<int>(param_int(launch, 4));
  const Tolerance tolerance{param_f32(launch, 5), param_f32(launch, 6),
                            static_cast<int>(param_int(launch, 7))};
  const uint64_t slots = elements(matrix_count, stride);
  const float* diagonal = checked_param_buffer<float>(launch, buffers, 0, slots, "matrix_count x stride");
  const float* coupling = checked_param_buffer<float>(launch, buffers, 1, slots, "matrix_count x stride");
  const int32_t* sizes =
      checked_param_buffer<int32_t>(launch, buffers, 2, elements(matrix_count), "one per matrix");
  float* eigenvalues = checked_param_buffer<float>(launch, buffers, 8, slots, "matrix_count x stride");
  int32_t* iterations = checked_param_buffer<int32_t>(launch, buffers, 9, slots, "matrix_count x stride");
  if (matrix_count < 1)
    reference_error(launch, "matrix_count must be at least 1 (threads are spread over it)");
  const uint64_t threads = launch.grid.count() * launch.block.count();
  for (int matrix = 0; matrix < matrix_count; ++matrix) {
    const int n = sizes[matrix];
    if (n > stride) {
      reference_error(launch, "matrix " + std::to_string(matrix) + " has size " + std::to_string(n) +
                                  ", more than stride = " + std::to_string(stride) +
                                  ": its rows would run into the next matrix");
    }
    if (n < 1) continue;  // no thread has an eigenvalue to find
    const float* a = diagonal + static_cast<size_t>(matrix) * static_cast<size_t>(stride);
    const float* e = coupling + static_cast<size_t>(matrix) * static_cast<size_t>(stride);
    float lo = a[0], hi = a[0];
    for (int i = 0; i < n; ++i) {
      float radius = 0.0f;
      if (i > 0) radius = radius + std::fabs(e[i - 1]);
      if (i < n - 1) radius = radius + std::fabs(e[i]);
      lo = std::fmin(lo, a[i] - radius);
      hi = std::fmax(hi, a[i] + radius);
    }
    for (int k = 0; k < n; ++k) {
      // Thread k * matrix_count + matrix finds eigenvalue k of this matrix, if the grid has it.
      if (static_cast<uint64_t>(k) * static_cast<uint64_t>(matrix_count) + static_cast<uint64_t>(matrix) >=
          threads) {
        break;
      }
      const size_t slot = static_cast<size_t>(matrix) * static_cast<size_t>(stride) + static_cast<size_t>(k);
      float low = lo, high = hi;
      int iteration = 0;
      while (iteration < tolerance.max_iterations &&
             high - low >
                 tolerance.absolute + tolerance.relative * std::fmax(std::fabs(low), std::fabs(high))) {
        const float middle = 0.5f * (low + high);
        if (more_than_k_below(a, e, n, middle, k)) {
          high = middle;
        } else {
          low = middle;
        }
        ++iteration;
      }
      eigenvalues[slot] = 0.5f * (low + high);
      iterations[slot] = iteration;
    }
  }
}

}  // namespace simtlm::workloads
