// Reference of workloads/svm_kernel: the kernel's float operations in its order (squared distances summed
// over features 0..15, the same polynomial exponential, the cutoff test, contributions added in support
// vector order after the bias, no contraction).
#include <algorithm>

#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {
namespace {

constexpr int kFeatures = 16;

float exp_negative(float t) {
  const float u = t * 0.125f;
  float e = 0.0013888889f;
  e = e * u - 0.008333334f;
  e = e * u + 0.041666668f;
  e = e * u - 0.16666667f;
  e = e * u + 0.5f;
  e = e * u - 1.0f;
  e = e * u + 1.0f;
  e = e * e;
  e = e * e;
  return e * e;
}

}  // namespace

void svm_kernel(const launch::Launch& launch, Buffers& buffers) {
  const int64_t n = param_int(launch, 5), support_count = param_int(launch, 6);
  const float gamma = param_f32(launch, 7), cutoff = param_f32(launch, 8), bias = param_f32(launch, 9);
  if (n < 0 || support_count < 0 || support_count > (int64_t{1} << 16))
    reference_error(launch, "n must not be negative and support_count must lie in [0, 2^16]");
  const int64_t vectors_run = std::min<int64_t>(n, int64_t(launch.grid.count() * launch.block.count()));
  const float* vectors =
      checked_param_buffer<float>(launch, buffers, 0, elements(vectors_run, kFeatures), "16 per vector");
  const float* support = checked_param_buffer<float>(launch, buffers, 1, elements(support_count, kFeatures),
                                                     "16 per support vector");
  const float* weights =
      checked_param_buffer<float>(launch, buffers, 2, uint64_t(support_count), "one per support vector");
  float* decision = checked_param_buffer<float>(launch, buffers, 3, uint64_t(vectors_run), "one per vector");
  int32_t* label = checked_param_buffer<int32_t>(launch, buffers, 4, uint64_t(vectors_run), "one per vector");
  for (int64_t v = 0; v < vectors_run; ++v) {
    const float* x = vectors + v * kFeatures;
    float sum = bias;
    for (int64_t s = 0; s < support_count; ++s) {
      float squared = 0.0f;
      for (int f = 0; f < kFeatures; ++f) {
        const float diff = x[f] - support[s * kFeatures + f];
        squared = squared + diff * diff;
      }
      const float t = gamma * squared;
      if (t < cutoff) sum = sum + weights[s] * exp_negative(t);
    }
    if (sum >= 0.0f) {
      decision[v] = sum;
      label[v] = 1;
    } else {
      decision[v] = sum < -0.1f ? -0.1f : sum;
      label[v] = -1;
    }
  }
}

}  // namespace simtlm::workloads
