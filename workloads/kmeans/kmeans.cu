// One k-means step over n points of kDims floats (point-major: x[p * kDims + d]), as data-parallel tasks.
//
// assign_points: one task per point finds the nearest of k centres (squared Euclidean distance, dimensions
// summed in order 0..kDims-1, ties to the lowest centre index) and writes its index and distance. A centre is
// abandoned as soon as its partial sum reaches the best distance so far; partial sums of squares only grow,
// so this never changes the result, but lanes leave the dimension loop after data-dependent trip counts.
// update_centres: one task per centre sums the points assigned to it in point order and divides by their
// count (a centre without points keeps its position). Only k tasks, each scanning every point: the long-task
// reduction phase of the Robust SIMD paper's KMeans.

constexpr int kDims = 8;

extern "C" __global__ void assign_points(const float* points, const float* centres, int* assignment,
                                         float* distance, int n, int k) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= n) return;
  float x[kDims];
#pragma unroll
  for (int d = 0; d < kDims; ++d) x[d] = points[p * kDims + d];
  float best = 0.0f;
  int nearest = -1;
  for (int c = 0; c < k; ++c) {
    const float* centre = centres + c * kDims;
    float sum = 0.0f;
    bool closer = true;
#pragma unroll
    for (int d = 0; d < kDims; ++d) {
      const float diff = x[d] - centre[d];
      sum = sum + diff * diff;
      if (nearest >= 0 && sum >= best) {
        closer = false;
        break;
      }
    }
    if (closer) {
      best = sum;
      nearest = c;
    }
  }
  assignment[p] = nearest;
  distance[p] = best;
}

extern "C" __global__ void update_centres(const float* points, const int* assignment, const float* centres,
                                          float* new_centres, int n, int k) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= k) return;
  float sum[kDims];
#pragma unroll
  for (int d = 0; d < kDims; ++d) sum[d] = 0.0f;
  int members = 0;
  for (int p = 0; p < n; ++p) {
    if (assignment[p] != c) continue;
    ++members;
#pragma unroll
    for (int d = 0; d < kDims; ++d) sum[d] = sum[d] + points[p * kDims + d];
  }
#pragma unroll
  for (int d = 0; d < kDims; ++d) {
    new_centres[c * kDims + d] = members == 0 ? centres[c * kDims + d] : sum[d] / static_cast<float>(members);
  }
}
