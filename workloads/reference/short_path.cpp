// Reference of workloads/short_path: replays every short_path_row launch of the sequence in order, each row
// from the row before as the kernel does (the first maximum among the straight, left and right move; blocked
// cells and cells with only blocked predecessors unreachable).
#include <algorithm>

#include "workloads/reference/sequence_replay.hpp"
#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {
namespace {

constexpr int32_t kUnreachable = -(1 << 30);

void compute_row(const int32_t* gain, int32_t* best, int8_t* choice, int64_t width, int64_t row,
                 uint64_t tasks) {
  const int64_t cells = std::min(int64_t(tasks), width);
  for (int64_t j = 0; j < cells; ++j) {
    const int64_t cell = row * width + j;
    const int32_t own = gain[cell];
    choice[cell] = 0;
    if (own < 0) {
      best[cell] = kUnreachable;
      continue;
    }
    if (row == 0) {
      best[cell] = own;
      continue;
    }
    const int32_t* previous = best + (row - 1) * width;
    int32_t value = previous[j];
    int8_t from = 0;
    if (j > 0 && previous[j - 1] > value) {
      value = previous[j - 1];
      from = -1;
    }
    if (j + 1 < width && previous[j + 1] > value) {
      value = previous[j + 1];
      from = 1;
    }
    if (value == kUnreachable) {
      best[cell] = kUnreachable;
    } else {
      best[cell] = value + own;
      choice[cell] = from;
    }
  }
}

}  // namespace

void short_path(const launch::Launch& launch, Buffers& buffers) {
  replay_sequence(launch, [&](const ReplayedLaunch& step) {
    if (step.step.kernel != "short_path_row")
      reference_error(launch, std::string("unexpected kernel ").append(step.step.kernel));
    const int64_t width = step.integer(3), row = step.integer(4);
    if (width < 1 || row < 0 || width > (int64_t{1} << 26) || row > (int64_t{1} << 20))
      reference_error(launch, "width must lie in [1, 2^26] and row in [0, 2^20]");
    const uint64_t cells = uint64_t(width) * uint64_t(row + 1);
    const char* const why = "width per row up to the launch's row";
    const int32_t* gain = checked_view<int32_t>(launch, buffers, step.buffer(0), cells, why);
    int32_t* best = checked_view<int32_t>(launch, buffers, step.buffer(1), cells, why);
    int8_t* choice = checked_view<int8_t>(launch, buffers, step.buffer(2), cells, why);
    compute_row(gain, best, choice, width, row, step.threads());
  });
}

}  // namespace simtlm::workloads
