// The host references of the Table II workloads fft, edge_filter, hotspot and lu (issue 15) against
// independent formulations: a double-precision DFT and std::sin/cos, a 3x3 correlation with weight tables,
// a double-precision clamped stencil and the product L * U. The suite run (scripts/check-suite) holds the
// kernels to the references bit for bit; these tests hold the references to the algorithms.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <vector>

#include "testbenches/unit/reference_run.hpp"

namespace simtlm::workloads {
namespace {

using workloads_test::elements_of;
using workloads_test::ReferenceRun;
using workloads_test::run_reference;

TEST(Table2References, FftEqualsADoublePrecisionDft) {
  const ReferenceRun run = run_reference("fft");
  const auto input = elements_of<float>(run.initial, "input");
  const auto output = elements_of<float>(run.final, "data");
  const size_t n = input.size() / 2;
  ASSERT_EQ(n, 8192u);
  ASSERT_EQ(output.size(), 2 * n);
  const double pi = std::acos(-1.0);
  for (const size_t bin : {0u, 1u, 2u, 3u, 511u, 1024u, 2049u, 4095u, 4096u, 7777u, 8191u}) {
    std::complex<double> sum = 0;
    for (size_t k = 0; k < n; ++k) {
      const double angle = -2.0 * pi * static_cast<double>((k * bin) % n) / static_cast<double>(n);
      sum += std::complex<double>(input[2 * k], input[2 * k + 1]) * std::polar(1.0, angle);
    }
    // |X| is about sqrt(n) / 2 here; 13 stages of f32 rounding stay far below 1e-4.
    EXPECT_NEAR(output[2 * bin], sum.real(), 1e-4) << "bin " << bin;
    EXPECT_NEAR(output[2 * bin + 1], sum.imag(), 1e-4) << "bin " << bin;
  }
  const auto twiddles = elements_of<float>(run.final, "twiddles");
  ASSERT_EQ(twiddles.size(), n);
  for (size_t k = 0; k < n / 2; ++k) {
    const double angle = 2.0 * pi * static_cast<double>(k) / static_cast<double>(n);
    EXPECT_NEAR(twiddles[2 * k], std::cos(angle), 2e-7) << "k " << k;
    EXPECT_NEAR(twiddles[2 * k + 1], -std::sin(angle), 2e-7) << "k " << k;
  }
}

TEST(Table2References, EdgeFilterEqualsA3x3CorrelationWithWeightTables) {
  const ReferenceRun run = run_reference("edge_filter");
  const auto image = elements_of<uint8_t>(run.initial, "image");
  const auto edges = elements_of<uint8_t>(run.final, "edges");
  const int size = 192;
  ASSERT_EQ(edges.size(), size_t(size * size));
  const int weight_x[3][3] = {{-1, 0, 1}, {-2, 0, 2}, {-1, 0, 1}};
  const int weight_y[3][3] = {{-1, -2, -1}, {0, 0, 0}, {1, 2, 1}};
  int saturated = 0, partial = 0;
  for (int y = 0; y < size; ++y) {
    for (int x = 0; x < size; ++x) {
      int expected = 0;
      if (x > 0 && y > 0 && x < size - 1 && y < size - 1) {
        int gx = 0, gy = 0;
        for (int dy = 0; dy < 3; ++dy) {
          for (int dx = 0; dx < 3; ++dx) {
            const int pixel = image[(y + dy - 1) * size + x + dx - 1];
            gx += weight_x[dy][dx] * pixel;
            gy += weight_y[dy][dx] * pixel;
          }
        }
        expected = std::min(255, std::abs(gx) + std::abs(gy));
      }
      ASSERT_EQ(edges[y * size + x], expected) << "pixel " << x << ", " << y;
      saturated += expected == 255;
      partial += expected > 0 && expected < 255;
    }
  }
  // The image has strong edges (saturated) and noise-level gradients, so both sides of the clamp are used.
  EXPECT_GT(saturated, 1000);
  EXPECT_GT(partial, 10000);
}

TEST(Table2References, HotspotEqualsADoublePrecisionClampedStencil) {
  const ReferenceRun run = run_reference("hotspot");
  const int rows = 128, cols = 128, steps = 4;
  const double step_over_cap = 0.5, rx_inv = 0.2, ry_inv = 0.25, rz_inv = 0.01, ambient = 80.0;
  const auto start = elements_of<float>(run.initial, "temp_a");
  const auto power = elements_of<float>(run.initial, "power");
  ASSERT_EQ(start.size(), size_t(rows * cols));
  std::vector<double> temp(start.begin(), start.end()), next(temp.size());
  for (int s = 0; s < steps; ++s) {
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < cols; ++c) {
        auto at = [&](int rr, int cc) {
          return temp[std::clamp(rr, 0, rows - 1) * cols + std::clamp(cc, 0, cols - 1)];
        };
        const double t = at(r, c);
        const double laplace_y = at(r - 1, c) + at(r + 1, c) - 2 * t;
        const double laplace_x = at(r, c - 1) + at(r, c + 1) - 2 * t;
        next[r * cols + c] = t + step_over_cap * (power[r * cols + c] + laplace_y * ry_inv +
                                                  laplace_x * rx_inv + (ambient - t) * rz_inv);
      }
    }
    temp.swap(next);
  }
  const auto result = elements_of<float>(run.final, "temp_a");
  double largest_change = 0;
  for (size_t p = 0; p < temp.size(); ++p) {
    ASSERT_NEAR(result[p], temp[p], 2e-3) << "cell " << p;
    largest_change = std::max(largest_change, std::abs(temp[p] - start[p]));
  }
  EXPECT_GT(largest_change, 1.0);  // the steps really moved the field
}

// Element (i, j) of L * U over the first `steps` elimination steps plus what the factorisation left there.
double lu_product(const std::vector<float>& a, int n, int steps, int i, int j) {
  double sum = 0;
  for (int p = 0; p < std::min({i, j, steps}); ++p) sum += double(a[i * n + p]) * a[p * n + j];
  // Below the diagonal in a factored column: l[i][j] * u[j][j]; elsewhere U or the reduced trailing block.
  if (i > j && j < steps) return sum + double(a[i * n + j]) * a[j * n + j];
  return sum + a[i * n + j];
}

TEST(Table2References, LuFactorsReproduceTheDominantMatrix) {
  const ReferenceRun run = run_reference("lu");
  const int n = int(run.launch.constants.at("n")), steps = int(run.launch.constants.at("steps"));
  ASSERT_EQ(n, 96);
  ASSERT_EQ(steps, 32);
  const auto start = elements_of<float>(run.initial, "a");
  const auto factored = elements_of<float>(run.final, "a");
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const double original = start[i * n + j] + (i == j ? 96.0 : 0.0);
      ASSERT_NEAR(lu_product(factored, n, steps, i, j), original, 2e-4) << i << ", " << j;
    }
  }
}

// The reference replays the launches the file really makes: with one elimination step, column 0 is divided
// by the shifted pivot and nothing past the first rank-1 update changes.
TEST(Table2References, LuReplaysTheStepCountOfTheLaunchFile) {
  const ReferenceRun run = run_reference("lu", {"constants={n: 96, steps: 1}"});
  const int n = 96;
  const auto start = elements_of<float>(run.initial, "a");
  const auto factored = elements_of<float>(run.final, "a");
  auto shifted = [&](int i, int j) { return i == j ? start[i * n + j] + 96.0f : start[i * n + j]; };
  for (int j = 0; j < n; ++j) EXPECT_EQ(factored[j], shifted(0, j)) << "row 0, column " << j;
  for (int i = 1; i < n; ++i) {
    const float l = shifted(i, 0) / shifted(0, 0);
    ASSERT_EQ(factored[i * n], l) << "row " << i;
    for (int j = 1; j < n; ++j)
      ASSERT_EQ(factored[i * n + j], shifted(i, j) - l * shifted(0, j)) << i << ", " << j;
  }
}

}  // namespace
}  // namespace simtlm::workloads
