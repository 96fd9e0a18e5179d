// Application-style kernels (testbenches/apps/NAME/) run as a user would run them: the launch file's host
// sequence on the functional model, every output compared exactly with a host reference written here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "models/launch/launch.hpp"
#include "models/launch/sequence.hpp"

namespace simtlm::launch {
namespace {

namespace fs = std::filesystem;

fs::path app(const std::string& name) {
  return fs::path(SIMTLM_SOURCE_DIR) / "testbenches/apps" / name / (name + ".yaml");
}

template <class T>
std::vector<T> as(const std::vector<uint8_t>& bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

// The initial contents of a buffer, read from a session that has not launched anything.
template <class T>
std::vector<T> initial(const std::string& name, const std::string& buffer) {
  SequenceSession session(load_launch(app(name)), {});
  session.reset();
  SessionResult before;
  session.finish(before);
  return as<T>(before.buffers.at(buffer));
}

SessionResult run_app(const std::string& name) {
  return SequenceSession(load_launch(app(name)), {}).run();
}

TEST(Apps, HotspotPingPongStencilMatchesHostSteps) {
  const int rows = 48, cols = 48, n = rows * cols;
  const auto power = initial<float>("hotspot", "power");
  auto temp = initial<float>("hotspot", "temp");
  ASSERT_EQ(temp.size(), size_t(2 * n));
  for (int step = 0; step < 6; ++step) {
    const float* src = temp.data() + (step % 2) * n;
    float* dst = temp.data() + ((step + 1) % 2) * n;
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) {
        const float t = src[r * cols + c];
        const float left = src[r * cols + std::max(c - 1, 0)],
                    right = src[r * cols + std::min(c + 1, cols - 1)];
        const float up = src[std::max(r - 1, 0) * cols + c], down = src[std::min(r + 1, rows - 1) * cols + c];
        const float horizontal = (left + right - 2.0f * t) * 0.25f;
        const float vertical = (up + down - 2.0f * t) * 0.125f;
        const float to_ambient = (300.0f - t) * 0.0625f;
        dst[r * cols + c] = t + 0.5f * (power[r * cols + c] + horizontal + vertical + to_ambient);
      }
  }
  const SessionResult r = run_app("hotspot");
  EXPECT_EQ(as<float>(r.buffers.at("temp")), temp);
  ASSERT_EQ(r.launches.size(), 6u);
  EXPECT_EQ(r.launches[5]["iteration"], 5);
  EXPECT_EQ(r.stats.ctas, 6u * 9u);
}

TEST(Apps, PathfinderPyramidSweepMatchesHostDynamicProgramme) {
  const int cols = 200, rows = 33;
  const auto wall = initial<int32_t>("pathfinder", "wall");
  // dp[r] holds the cheapest cost of reaching each column of row r; row 0 is the first half of `result`.
  std::vector<std::vector<int32_t>> dp(rows, std::vector<int32_t>(cols));
  const auto result = initial<int32_t>("pathfinder", "result");
  std::copy_n(result.begin(), cols, dp[0].begin());
  for (int r = 1; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      int32_t best = dp[r - 1][c];
      if (c > 0) best = std::min(best, dp[r - 1][c - 1]);
      if (c < cols - 1) best = std::min(best, dp[r - 1][c + 1]);
      dp[r][c] = best + wall[r * cols + c];
    }
  const SessionResult r = run_app("pathfinder");
  const auto out = as<int32_t>(r.buffers.at("result"));
  EXPECT_EQ(std::vector<int32_t>(out.begin(), out.begin() + cols), dp[32]);  // launch 7 wrote the first half
  EXPECT_EQ(std::vector<int32_t>(out.begin() + cols, out.end()), dp[28]);
  ASSERT_EQ(r.launches.size(), 8u);
  EXPECT_EQ(r.stats.ctas, 8u * 4u);
}

TEST(Apps, TemplatedMatrixMulByCppNameWithConstantBiasAndStructDims) {
  const int ha = 32, wa = 32, wb = 48;
  const auto a = initial<float>("matrix_mul", "a");
  const auto b = initial<float>("matrix_mul", "b");
  std::vector<float> c(ha * wb);
  for (int row = 0; row < ha; ++row)
    for (int col = 0; col < wb; ++col) {
      float sum = 0.0f;
      for (int k = 0; k < wa; ++k) sum += a[row * wa + k] * b[k * wb + col];
      c[row * wb + col] = 0.5f * sum + (0.5f + 0.25f * float(col % 16));
    }
  const SessionResult r = run_app("matrix_mul");
  EXPECT_EQ(as<float>(r.buffers.at("c16")), c);
  EXPECT_EQ(as<float>(r.buffers.at("c8")), c);
  EXPECT_TRUE(r.warnings.empty()) << r.warnings[0];  // c_bias came from symbols:
  ASSERT_EQ(r.launches.size(), 2u);
  EXPECT_EQ(r.launches[0]["kernel"], "_Z9matrixMulILi16EEvPfPKfS2_10MatrixDims");
  EXPECT_EQ(r.launches[1]["kernel"], "_Z9matrixMulILi8EEvPfPKfS2_10MatrixDims");
}

TEST(Apps, CooperativeGroupsReduceMatchAnyAndFloat4Scan) {
  const auto in = initial<float>("tile_reduce", "in");
  std::vector<double> sums(4, 0.0);
  for (int k = 0; k < 1000; ++k) sums[k / 256] += double(in[k]);  // exact: no order dependence here
  const auto keys = initial<int32_t>("tile_reduce", "keys");
  std::vector<int32_t> counts(200), leaders(200);
  for (int k = 0; k < 200; ++k) {
    const int warp = k / 32;
    int first = -1, count = 0;
    for (int j = warp * 32; j < std::min(warp * 32 + 32, 200); ++j)
      if (keys[j] == keys[k]) {
        if (first < 0) first = j;
        ++count;
      }
    counts[k] = count;
    leaders[k] = first == k ? 1 : 0;
  }
  // Hillis-Steele per CTA of 128 float4, in the kernel's order of additions.
  const auto scan_in = initial<float>("tile_reduce", "scan_in");
  std::vector<float> scan(1200, 0.0f);
  for (int cta = 0; cta < 3; ++cta) {
    std::vector<float> buf(128 * 4, 0.0f);
    for (int t = 0; t < 128; ++t)
      if (cta * 128 + t < 300)
        for (int c = 0; c < 4; ++c) buf[t * 4 + c] = scan_in[(cta * 128 + t) * 4 + c];
    for (int offset = 1; offset < 128; offset *= 2) {
      std::vector<float> next = buf;
      for (int t = 0; t < 128; ++t)
        for (int c = 0; c < 4; ++c)
          next[t * 4 + c] = buf[t * 4 + c] + (t >= offset ? buf[(t - offset) * 4 + c] : 0.0f);
      buf = next;
    }
    for (int t = 0; t < 128 && cta * 128 + t < 300; ++t)
      for (int c = 0; c < 4; ++c) scan[(cta * 128 + t) * 4 + c] = buf[t * 4 + c];
  }
  const SessionResult r = run_app("tile_reduce");
  EXPECT_EQ(as<double>(r.buffers.at("block_sums")), sums);
  EXPECT_EQ(as<int32_t>(r.buffers.at("counts")), counts);
  EXPECT_EQ(as<int32_t>(r.buffers.at("leaders")), leaders);
  EXPECT_EQ(as<float>(r.buffers.at("scan_out")), scan);
}

TEST(Apps, CsrSpmvStructOfArraysAndRecursiveBinHistogram) {
  const auto offsets = initial<int32_t>("spmv_histo", "row_offsets");
  const auto columns = initial<int32_t>("spmv_histo", "columns");
  const auto values = initial<float>("spmv_histo", "values");
  const auto x = initial<float>("spmv_histo", "x");
  std::vector<float> y(256);
  for (int row = 0; row < 256; ++row) {
    float sum = 0.0f;
    for (int j = offsets[row]; j < offsets[row + 1]; ++j) sum += values[j] * x[columns[j]];
    y[row] = sum;
  }
  const auto data = initial<uint32_t>("spmv_histo", "data");
  const auto edges = initial<uint32_t>("spmv_histo", "edges");
  std::vector<uint32_t> histo(16, 0);
  for (uint32_t v : data)
    for (int b = 0; b < 16; ++b)
      if (v >= edges[b] && v < edges[b + 1]) ++histo[b];
  const SessionResult r = run_app("spmv_histo");
  EXPECT_EQ(as<float>(r.buffers.at("y")), y);
  EXPECT_EQ(as<uint32_t>(r.buffers.at("histo")), histo);
  uint32_t binned = 0;
  for (uint32_t h : histo) binned += h;
  EXPECT_LT(binned, 4096u);  // values outside [40, 990) are dropped
  EXPECT_GT(binned, 3500u);
}

TEST(Apps, HostInterfaceNarrowParamsStructConstantsAndNamespacedTemplates) {
  const SessionResult r = run_app("host_interface");
  // 300 ones (300 twos) summed by strided threads; nIsPow2 = true doubles the sum.
  EXPECT_EQ(as<float>(r.buffers.at("fo")), (std::vector<float>{600, 0}));
  EXPECT_EQ(as<float>(r.buffers.at("fo2")), (std::vector<float>{300, 0}));
  EXPECT_EQ(as<int32_t>(r.buffers.at("io")), (std::vector<int32_t>{1200, 0}));
  ASSERT_EQ(r.launches.size(), 6u);
  EXPECT_EQ(r.launches[2]["kernel"], "_ZN4demo7reduce6IiLj128ELb1EEEvPKT_PS1_j");
  // char -3, short -300, bool, unsigned char 200, Mode::mul, double 2.5, float4 {1,2,3,4}, long long -5.
  EXPECT_EQ(as<float>(r.buffers.at("small")), (std::vector<float>{-3, -300, 1, 200, 2, 2.5f, 4321, -5}));
  // c_params {gravity (1, 2, 3), damping 0.5, count 7, seed 42}, c_pairs, c_scale, d_counter 5 then +1,
  // d_init {10, 20, 30, 40}, d_vec {1.5, 2.5, 3.5}.
  EXPECT_EQ(as<float>(r.buffers.at("consts")),
            (std::vector<float>{1, 2, 3,     0.5f, 7,  42, 1,  2,  3,    4,    5,    6,
                                7, 8, 0.25f, 5,    10, 20, 30, 40, 1.5f, 2.5f, 3.5f, 0}));
  EXPECT_EQ(as<int32_t>(r.buffers.at("d_counter")), std::vector<int32_t>{106});  // + 1 + 100 (no_params)
}

TEST(Apps, CasLoopMaxWarpLeaderLockAnd64BitAtomics) {
  const auto in = initial<float>("atomic_locks", "in");
  const auto ints = initial<int32_t>("atomic_locks", "ints");
  float max = -1000.0f;
  double sum = 0.0;
  for (float x : in) {
    max = std::max(max, x);
    sum += double(int(x * 16.0f)) / 16.0;
  }
  int32_t total = 0;
  for (int32_t v : ints) total += v;
  const SessionResult r = run_app("atomic_locks");
  EXPECT_EQ(as<float>(r.buffers.at("result")), std::vector<float>{max});
  EXPECT_EQ(as<int32_t>(r.buffers.at("total")), std::vector<int32_t>{total});
  EXPECT_EQ(as<int32_t>(r.buffers.at("warps")), std::vector<int32_t>{128});
  EXPECT_EQ(as<int32_t>(r.buffers.at("mutex")), std::vector<int32_t>{0});
  EXPECT_EQ(as<double>(r.buffers.at("sum")), std::vector<double>{sum});
  EXPECT_EQ(as<uint64_t>(r.buffers.at("index_sum")), std::vector<uint64_t>{4096ull * 4095 / 2});
}

}  // namespace
}  // namespace simtlm::launch
