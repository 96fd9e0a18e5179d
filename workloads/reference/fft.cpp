// Reference of workloads/fft: replays the sequence launch by launch (fft_twiddles, fft_bit_reverse,
// fft_butterfly stages) with the kernels' float operations in their order, so the transform matches bit for
// bit.
#include <utility>

#include "workloads/reference/sequence_replay.hpp"
#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {
namespace {

float sin_quarter(float x) {
  const float x2 = x * x;
  return x *
         (1.0f - x2 * (1.0f / 6.0f - x2 * (1.0f / 120.0f - x2 * (1.0f / 5040.0f - x2 * (1.0f / 362880.0f)))));
}

float cos_quarter(float x) {
  const float x2 = x * x;
  return 1.0f - x2 * (0.5f - x2 * (1.0f / 24.0f - x2 * (1.0f / 720.0f - x2 * (1.0f / 40320.0f))));
}

int checked_log2n(const ReplayedLaunch& step, size_t index) {
  const int64_t log2n = step.integer(index);
  if (log2n < 2 || log2n > 26)
    reference_error(step.launch, "log2n of the " + step.where() + " must be in [2, 26]");
  return static_cast<int>(log2n);
}

void twiddles(const ReplayedLaunch& step, Buffers& buffers) {
  const int64_t half_n = step.integer(1);
  const int log2n = checked_log2n(step, 2);
  if (half_n != (int64_t{1} << (log2n - 1))) reference_error(step.launch, "half_n must be 2^(log2n - 1)");
  float* table = checked_view<float>(step.launch, buffers, step.buffer(0), 2 * half_n, "2 per twiddle");
  const int half = static_cast<int>(half_n), quarter = half >> 1, eighth = half >> 2;
  const float angle_step = 6.28318530717958647692f / static_cast<float>(1 << log2n);
  for (int k = 0; k < half; ++k) {
    const bool second_quadrant = k > quarter;
    const int in_quadrant = second_quadrant ? half - k : k;
    const bool upper_octant = in_quadrant > eighth;
    const float angle = static_cast<float>(upper_octant ? quarter - in_quadrant : in_quadrant) * angle_step;
    float c = cos_quarter(angle), s = sin_quarter(angle);
    if (upper_octant) std::swap(c, s);
    if (second_quadrant) c = -c;
    table[2 * k] = c;
    table[2 * k + 1] = -s;
  }
}

void bit_reverse(const ReplayedLaunch& step, Buffers& buffers) {
  const int64_t n = step.integer(2);
  const int log2n = checked_log2n(step, 3);
  if (n != (int64_t{1} << log2n)) reference_error(step.launch, "n must be 2^log2n");
  const float* input = checked_view<float>(step.launch, buffers, step.buffer(0), 2 * n, "2 per point");
  float* data = checked_view<float>(step.launch, buffers, step.buffer(1), 2 * n, "2 per point");
  if (input == data) reference_error(step.launch, "fft_bit_reverse needs distinct input and output buffers");
  for (uint32_t k = 0; k < n; ++k) {
    uint32_t reversed = 0;
    for (int b = 0; b < log2n; ++b) reversed = (reversed << 1) | ((k >> b) & 1u);
    data[2 * reversed] = input[2 * k];
    data[2 * reversed + 1] = input[2 * k + 1];
  }
}

void butterfly(const ReplayedLaunch& step, Buffers& buffers) {
  const int64_t half_n = step.integer(2);
  const int log2n = checked_log2n(step, 3);
  const int64_t stage = step.integer(4);
  if (half_n != (int64_t{1} << (log2n - 1))) reference_error(step.launch, "half_n must be 2^(log2n - 1)");
  if (stage < 0 || stage >= log2n)
    reference_error(step.launch, "stage of the " + step.where() + " out of range");
  float* data = checked_view<float>(step.launch, buffers, step.buffer(0), 4 * half_n, "2 per point");
  const float* table = checked_view<float>(step.launch, buffers, step.buffer(1), 2 * half_n, "2 per twiddle");
  const int span = 1 << stage;
  for (int t = 0; t < half_n; ++t) {
    const int j = t & (span - 1);
    const int i0 = ((t >> stage) << (stage + 1)) + j, i1 = i0 + span;
    const int w = j << (log2n - 1 - stage);
    const float wx = table[2 * w], wy = table[2 * w + 1];
    const float ax = data[2 * i0], ay = data[2 * i0 + 1], bx = data[2 * i1], by = data[2 * i1 + 1];
    const float re = wx * bx - wy * by;
    const float im = wx * by + wy * bx;
    data[2 * i0] = ax + re;
    data[2 * i0 + 1] = ay + im;
    data[2 * i1] = ax - re;
    data[2 * i1 + 1] = ay - im;
  }
}

}  // namespace

void fft(const launch::Launch& launch, Buffers& buffers) {
  replay_sequence(launch, [&](const ReplayedLaunch& step) {
    if (step.step.kernel == "fft_twiddles") {
      twiddles(step, buffers);
    } else if (step.step.kernel == "fft_bit_reverse") {
      bit_reverse(step, buffers);
    } else if (step.step.kernel == "fft_butterfly") {
      butterfly(step, buffers);
    } else {
      reference_error(launch, "the " + step.where() + " is not a kernel of fft.ptx");
    }
  });
}

}  // namespace simtlm::workloads
