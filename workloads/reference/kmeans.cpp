// Reference of workloads/kmeans: replays assign_points and update_centres launch by launch with the kernels'
// float operations in their order (distances summed over dimensions 0..7, the early stop at the best so far,
// members summed in point order, one IEEE division per coordinate).
#include <algorithm>

#include "workloads/reference/sequence_replay.hpp"
#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {
namespace {

constexpr int kDims = 8;

void assign_points(const float* points, const float* centres, int32_t* assignment, float* distance,
                   int64_t points_run, int64_t k) {
  for (int64_t p = 0; p < points_run; ++p) {
    const float* x = points + p * kDims;
    float best = 0.0f;
    int32_t nearest = -1;
    for (int64_t c = 0; c < k; ++c) {
      float sum = 0.0f;
      bool closer = true;
      for (int d = 0; d < kDims; ++d) {
        const float diff = x[d] - centres[c * kDims + d];
        sum = sum + diff * diff;
        if (nearest >= 0 && sum >= best) {
          closer = false;
          break;
        }
      }
      if (closer) {
        best = sum;
        nearest = int32_t(c);
      }
    }
    assignment[p] = nearest;
    distance[p] = best;
  }
}

void update_centres(const float* points, const int32_t* assignment, const float* centres, float* new_centres,
                    int64_t n, int64_t centres_run) {
  for (int64_t c = 0; c < centres_run; ++c) {
    float sum[kDims] = {};
    int32_t members = 0;
    for (int64_t p = 0; p < n; ++p) {
      if (assignment[p] != c) continue;
      ++members;
      for (int d = 0; d < kDims; ++d) sum[d] = sum[d] + points[p * kDims + d];
    }
    for (int d = 0; d < kDims; ++d) {
      new_centres[c * kDims + d] =
          members == 0 ? centres[c * kDims + d] : sum[d] / static_cast<float>(members);
    }
  }
}

}  // namespace

void kmeans(const launch::Launch& launch, Buffers& buffers) {
  replay_sequence(launch, [&](const ReplayedLaunch& step) {
    const int64_t n = step.integer(4), centre_count = step.integer(5);
    if (n < 0 || centre_count < 0 || n > (int64_t{1} << 26) || centre_count > (int64_t{1} << 16))
      reference_error(launch, "n must lie in [0, 2^26] and k in [0, 2^16]");
    const int64_t tasks = int64_t(step.threads());
    auto floats = [&](size_t index, uint64_t needed, const char* why) {
      return checked_view<float>(launch, buffers, step.buffer(index), needed, why);
    };
    auto ints = [&](size_t index) {
      return checked_view<int32_t>(launch, buffers, step.buffer(index), uint64_t(n), "one per point");
    };
    const uint64_t coordinates = uint64_t(n) * kDims, centre_coordinates = uint64_t(centre_count) * kDims;
    if (step.step.kernel == "assign_points") {
      assign_points(floats(0, coordinates, "8 per point"), floats(1, centre_coordinates, "8 per centre"),
                    ints(2), floats(3, uint64_t(n), "one per point"), std::min(tasks, n), centre_count);
    } else if (step.step.kernel == "update_centres") {
      update_centres(floats(0, coordinates, "8 per point"), ints(1),
                     floats(2, centre_coordinates, "8 per centre"),
                     floats(3, centre_coordinates, "8 per centre"), n, std::min(tasks, centre_count));
    } else {
      reference_error(launch, std::string("unexpected kernel ").append(step.step.kernel));
    }
  });
}

}  // namespace simtlm::workloads
