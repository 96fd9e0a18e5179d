// Reference of workloads/merge_sort: replays every launch of the sequence as the kernels compute it (a stable
// insertion sort of each run, then each pass's pairwise merges), for exactly the tasks each launch starts, so
// the intermediate ping-pong buffer matches too.
#include <algorithm>

#include "workloads/reference/sequence_replay.hpp"
#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {
namespace {

void sort_runs(const uint32_t* keys, uint32_t* sorted, int64_t n, int64_t run, uint64_t tasks) {
  for (uint64_t task = 0; task < tasks; ++task) {
    const int64_t begin = int64_t(task) * run;
    if (begin >= n) return;
    const int64_t end = std::min(begin + run, n);
    std::copy(keys + begin, keys + end, sorted + begin);
    std::stable_sort(sorted + begin, sorted + end);
  }
}

void merge_runs(const uint32_t* source, uint32_t* destination, int64_t n, int64_t width, uint64_t tasks) {
  for (uint64_t task = 0; task < tasks; ++task) {
    const int64_t begin = 2 * int64_t(task) * width;
    if (begin >= n) return;
    const int64_t middle = std::min(begin + width, n), end = std::min(begin + 2 * width, n);
    std::merge(source + begin, source + middle, source + middle, source + end, destination + begin);
  }
}

}  // namespace

void merge_sort(const launch::Launch& launch, Buffers& buffers) {
  replay_sequence(launch, [&](const ReplayedLaunch& step) {
    const int64_t n = step.integer(2), size = step.integer(3);
    if (n < 0 || size < 1 || n > (int64_t{1} << 28))
      reference_error(launch, "n must lie in [0, 2^28] and the run width be positive");
    const uint64_t tasks = step.threads();
    auto buffer = [&](size_t index) {
      return checked_view<uint32_t>(launch, buffers, step.buffer(index), uint64_t(n), "n keys");
    };
    if (step.step.kernel == "sort_runs") {
      sort_runs(buffer(0), buffer(1), n, size, tasks);
    } else if (step.step.kernel == "merge_runs") {
      if (step.buffer(0) == step.buffer(1))
        reference_error(launch, "merge_runs needs different source and destination buffers");
      merge_runs(buffer(0), buffer(1), n, size, tasks);
    } else {
      reference_error(launch, std::string("unexpected kernel ").append(step.step.kernel));
    }
  });
}

}  // namespace simtlm::workloads
