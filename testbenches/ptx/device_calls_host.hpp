// Host twins of the device functions in testbenches/ptx/device_calls.cu, and the outputs its device_calls
// kernel must write, shared by the functional (testbenches/unit/test_device_calls.cpp) and timing
// (testbenches/timing/test_timing_calls.cpp) tests.
#pragma once

#include <cstdint>
#include <vector>

namespace simtlm::test {

struct Window {
  int values[4];
  int count;
  float scale;
};

inline int host_fib(int n) {
  return n < 2 ? n : host_fib(n - 1) + host_fib(n - 2);
}

inline float host_window_score(const Window& w, int bias) {
  float score = 0.0f;
  if (w.count > 2) {
    for (int i = 0; i < w.count && i < 4; ++i) score += w.scale * float(w.values[i]);
  } else {
    score = float(w.values[0] - bias) * 0.5f;
  }
  return score;
}

inline int host_tree_depth(int node) {
  return node == 0 ? 0 : 1 + host_tree_depth((node - 1) / 2);
}

inline int host_powers_sum(int t) {
  int sum = 0, v = 1;
  for (int i = 0; i < t % 6 + 1; ++i, v *= t % 4 + 2) sum += v;
  return sum;
}

// The five output buffers of the device_calls kernel, one element per thread.
struct DeviceCallsOutputs {
  std::vector<int32_t> fib, squares, depth, powers;
  std::vector<float> score;
};

inline DeviceCallsOutputs device_calls_expected(int threads) {
  DeviceCallsOutputs out;
  for (int t = 0; t < threads; ++t) {
    out.fib.push_back(host_fib((t * 7) % 13));
    Window w{};
    for (int i = 0; i < 4; ++i) w.values[i] = t * (i + 1) - 3;
    w.count = t % 6;
    w.scale = 0.25f * float(t % 3 + 1);
    out.score.push_back(host_window_score(w, t % 4));
    out.squares.push_back(t * t + (t - 5) * (t - 5));
    out.depth.push_back(host_tree_depth(t * 3));
    out.powers.push_back(host_powers_sum(t));
  }
  return out;
}

}  // namespace simtlm::test
