// Reference of workloads/hotspot: replays every hotspot_step launch of the sequence (repeats unrolled) from
// its source to its destination buffer with its own parameters, in the kernel's float operation order.
#include "workloads/reference/sequence_replay.hpp"
#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {
namespace {

struct Coefficients {
  float step_over_cap, rx_inv, ry_inv, rz_inv, ambient;
};

void step_cells(int rows, int cols, const Coefficients& k, const float* temp_in, float* temp_out,
                const float* power) {
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      const int p = r * cols + c;
      const float t = temp_in[p];
      const float north = r > 0 ? temp_in[p - cols] : t;
      const float south = r < rows - 1 ? temp_in[p + cols] : t;
      const float west = c > 0 ? temp_in[p - 1] : t;
      const float east = c < cols - 1 ? temp_in[p + 1] : t;
      const float vertical = (north + south - 2.0f * t) * k.ry_inv;
      const float horizontal = (west + east - 2.0f * t) * k.rx_inv;
      const float leak = (k.ambient - t) * k.rz_inv;
      temp_out[p] = t + k.step_over_cap * (power[p] + vertical + horizontal + leak);
    }
  }
}

}  // namespace

void hotspot(const launch::Launch& launch, Buffers& buffers) {
  replay_sequence(launch, [&](const ReplayedLaunch& step) {
    if (step.step.kernel != "hotspot_step")
      reference_error(launch, "the " + step.where() + " is not a hotspot_step launch");
    const int64_t rows = step.integer(3), cols = step.integer(4);
    if (rows < 1 || cols < 1 || elements(rows, cols) > (uint64_t{1} << 26))
      reference_error(launch, "the " + step.where() + " needs between 1 and 2^26 cells");
    const uint64_t cells = elements(rows, cols);
    const float* temp_in = checked_view<float>(launch, buffers, step.buffer(0), cells, "rows x cols");
    float* temp_out = checked_view<float>(launch, buffers, step.buffer(1), cells, "rows x cols");
    const float* power = checked_view<float>(launch, buffers, step.buffer(2), cells, "rows x cols");
    if (temp_in == temp_out || power == temp_out)
      reference_error(launch, "the " + step.where() + " must write a buffer it does not read");
    const Coefficients k{step.f32(5), step.f32(6), step.f32(7), step.f32(8), step.f32(9)};
    step_cells(static_cast<int>(rows), static_cast<int>(cols), k, temp_in, temp_out, power);
  });
}

}  // namespace simtlm::workloads
