// The host references of the Table II workloads merge_sort, short_path, kmeans and svm_kernel (issue 15)
// against independent formulations of what they compute: a library sort, a brute force over every path,
// double-precision distances and std::exp. The suite run (scripts/check-suite) holds the kernels to the
// references bit for bit; these tests hold the references to the algorithms.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "testbenches/unit/reference_run.hpp"

namespace simtlm::workloads {
namespace {

using workloads_test::elements_of;
using workloads_test::ReferenceRun;
using workloads_test::run_reference;

TEST(RobustSimdWorkloads, MergeSortEndsSortedWithTheLastPassInputInTheOtherBuffer) {
  const ReferenceRun run = run_reference("merge_sort");
  const auto keys = elements_of<uint32_t>(run.initial, "keys");
  ASSERT_EQ(keys.size(), 8192u);
  std::vector<uint32_t> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(elements_of<uint32_t>(run.final, "run_a"), sorted);
  // The last pass merged the two sorted halves that run_b still holds.
  std::vector<uint32_t> halves = keys;
  std::sort(halves.begin(), halves.begin() + 4096);
  std::sort(halves.begin() + 4096, halves.end());
  EXPECT_EQ(elements_of<uint32_t>(run.final, "run_b"), halves);
  // Repeated keys make the ties of the merge matter.
  EXPECT_LT(std::unique(sorted.begin(), sorted.end()) - sorted.begin(), 8192);
}

// The best score of every cell of the last row is the maximum gain over every path that enters it (one move
// of -1, 0 or +1 columns per row, no blocked cell), and following the recorded moves back collects exactly
// it.
TEST(RobustSimdWorkloads, ShortPathIsTheBestOfEveryPathAndItsMovesRetraceIt) {
  const ReferenceRun run = run_reference("short_path");
  const auto gain = elements_of<int32_t>(run.initial, "gain");
  const auto best = elements_of<int32_t>(run.final, "best");
  const auto choice = elements_of<int8_t>(run.final, "choice");
  const int64_t rows = 6, width = 12288;
  ASSERT_EQ(int64_t(gain.size()), rows * width);
  constexpr int32_t kUnreachable = -(1 << 30);
  int64_t unreachable = 0;
  for (int64_t j = 0; j < width; ++j) {
    // Depth-first over the 3^(rows - 1) paths ending at (rows - 1, j), walking up the board.
    int64_t brute = -1;
    std::vector<int64_t> column(rows), sum(rows);
    std::vector<int> move(rows, -2);
    int64_t r = rows - 1;
    column[r] = j;
    sum[r] = gain[r * width + j];
    if (sum[r] < 0) r = -1;  // blocked: no path
    while (r >= 0 && r < rows) {
      if (r == 0) {
        brute = std::max(brute, sum[0]);
        ++r;
        continue;
      }
      if (++move[r] > 1) {
        move[r] = -2;
        ++r;
        continue;
      }
      const int64_t up = column[r] + move[r];
      if (up < 0 || up >= width || gain[(r - 1) * width + up] < 0) continue;
      column[r - 1] = up;
      sum[r - 1] = sum[r] + gain[(r - 1) * width + up];
      --r;
    }
    const int32_t cell_best = best[(rows - 1) * width + j];
    if (brute < 0) {
      EXPECT_EQ(cell_best, kUnreachable) << j;
      ++unreachable;
      continue;
    }
    ASSERT_EQ(cell_best, brute) << j;
    int64_t at = j, collected = 0;
    for (int64_t row = rows - 1; row >= 0; --row) {
      collected += gain[row * width + at];
      if (row > 0) at += choice[row * width + at];
    }
    EXPECT_EQ(collected, brute) << j;
  }
  // Blocked cells (about 11%) and the cells they cut off.
  EXPECT_GT(unreachable, width / 20);
  EXPECT_LT(unreachable, width / 5);
}

TEST(RobustSimdWorkloads, KmeansAssignsTheNearestCentreAndAveragesItsMembers) {
  const ReferenceRun run = run_reference("kmeans");
  const auto points = elements_of<float>(run.initial, "points");
  const auto centres = elements_of<float>(run.initial, "centres");
  const auto assignment = elements_of<int32_t>(run.final, "assignment");
  const auto distance = elements_of<float>(run.final, "distance");
  const auto new_centres = elements_of<float>(run.final, "new_centres");
  const size_t n = 8192, k = 8, dims = 8;
  ASSERT_EQ(points.size(), n * dims);
  std::vector<double> sums(k * dims, 0.0);
  std::vector<int> members(k, 0);
  for (size_t p = 0; p < n; ++p) {
    std::vector<double> squared(k, 0.0);
    for (size_t c = 0; c < k; ++c) {
      for (size_t d = 0; d < dims; ++d) {
        const double diff = double(points[p * dims + d]) - double(centres[c * dims + d]);
        squared[c] += diff * diff;
      }
    }
    const auto nearest = size_t(std::min_element(squared.begin(), squared.end()) - squared.begin());
    ASSERT_GE(assignment[p], 0);
    const auto chosen = size_t(assignment[p]);
    ASSERT_LT(chosen, k);
    // Float rounding may pick a centre whose exact distance is within rounding of the nearest one.
    EXPECT_LE(squared[chosen], squared[nearest] * (1 + 1e-5)) << p;
    EXPECT_NEAR(distance[p], squared[chosen], squared[chosen] * 1e-5) << p;
    ++members[chosen];
    for (size_t d = 0; d < dims; ++d) sums[chosen * dims + d] += points[p * dims + d];
  }
  for (size_t c = 0; c < k; ++c) {
    ASSERT_GT(members[c], 0) << c;
    for (size_t d = 0; d < dims; ++d)
      EXPECT_NEAR(new_centres[c * dims + d], sums[c * dims + d] / members[c], 5e-4) << c << " " << d;
  }
}

TEST(RobustSimdWorkloads, SvmDecisionIsTheRbfSumWithinThePolynomialsError) {
  const ReferenceRun run = run_reference("svm_kernel");
  const auto vectors = elements_of<float>(run.initial, "vectors");
  const auto support = elements_of<float>(run.initial, "support");
  const auto weights = elements_of<float>(run.initial, "weights");
  const auto decision = elements_of<float>(run.final, "decision");
  const auto label = elements_of<int32_t>(run.final, "label");
  const size_t n = 6144, count = 8, features = 16;
  const double gamma = 1.5, cutoff = 4.0, bias = 0.01;
  ASSERT_EQ(vectors.size(), n * features);
  size_t positive = 0, clamped = 0, skipped = 0;
  for (size_t v = 0; v < n; ++v) {
    double sum = bias;
    bool near_cutoff = false;
    for (size_t s = 0; s < count; ++s) {
      double squared = 0.0;
      for (size_t f = 0; f < features; ++f) {
        const double diff = double(vectors[v * features + f]) - double(support[s * features + f]);
        squared += diff * diff;
      }
      const double t = gamma * squared;
      near_cutoff |= std::abs(t - cutoff) < 1e-4;  // float and double may fall on different sides
      if (t < cutoff) {
        sum += weights[s] * std::exp(-t);
      } else {
        ++skipped;
      }
    }
    if (near_cutoff || std::abs(sum) < 1e-4 || std::abs(sum + 0.1) < 1e-4) continue;
    EXPECT_EQ(label[v], sum >= 0 ? 1 : -1) << v;
    EXPECT_NEAR(decision[v], std::max(sum, -0.1), 2e-5) << v;
    positive += sum >= 0;
    clamped += sum < -0.1;
  }
  // Both labels and the clamp occur, and the cutoff skips a share of the pairs: the lanes diverge.
  EXPECT_GT(positive, n / 4);
  EXPECT_LT(positive, 3 * n / 4);
  EXPECT_GT(clamped, n / 50);
  EXPECT_GT(skipped, n * count / 4);
  EXPECT_LT(skipped, 3 * n * count / 4);
}

}  // namespace
}  // namespace simtlm::workloads
