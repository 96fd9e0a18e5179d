// SVM decision values with an RBF kernel, one data-parallel task per input vector (row-major,
// x[v * kFeatures + f]): decision = bias + sum over support vectors s of weight[s] * exp(-gamma * |x - s|^2).
// A pair whose scaled distance passes `cutoff` contributes nothing (exp(-cutoff) is below the weights'
// precision), so each lane skips the exponential for a data-dependent subset of the support vectors. The
// exponential is our own: exp(-t) = (exp(-t / 8))^8 with a degree-6 Taylor polynomial on [0, cutoff / 8].
// The sign of the decision picks the label and, for the negative class, the margin is clamped at -0.1.

constexpr int kFeatures = 16;

// exp(-t) for t in [0, 4], in the evaluation order the host reference repeats.
__device__ __forceinline__ float exp_negative(float t) {
  const float u = t * 0.125f;
  float e = 0.0013888889f;   // 1/720
  e = e * u - 0.008333334f;  // 1/120
  e = e * u + 0.041666668f;  // 1/24
  e = e * u - 0.16666667f;
  e = e * u + 0.5f;
  e = e * u - 1.0f;
  e = e * u + 1.0f;
  e = e * e;
  e = e * e;
  return e * e;
}

extern "C" __global__ void svm_decision(const float* vectors, const float* support, const float* weights,
                                        float* decision, int* label, int n, int support_count, float gamma,
                                        float cutoff, float bias) {
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  float x[kFeatures];
#pragma unroll
  for (int f = 0; f < kFeatures; ++f) x[f] = vectors[v * kFeatures + f];
  float sum = bias;
  for (int s = 0; s < support_count; ++s) {
    const float* sv = support + s * kFeatures;
    float squared = 0.0f;
#pragma unroll
    for (int f = 0; f < kFeatures; ++f) {
      const float diff = x[f] - sv[f];
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
