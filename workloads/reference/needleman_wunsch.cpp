// Reference of workloads/needleman_wunsch: the score recurrence row by row over the whole matrix. Tiles and
// waves only reorder independent cells, so the kernels' result is this one.
#include <algorithm>
#include <cmath>

#include "workloads/reference/sequence_params.hpp"
#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {

void needleman_wunsch(const launch::Launch& launch, Buffers& buffers) {
  const int32_t* similarity = view<int32_t>(buffers, "similarity");
  int32_t* score = view<int32_t>(buffers, "score");
  const auto cols = static_cast<int>(std::lround(std::sqrt(double(count_of<int32_t>(buffers, "score")))));
  const auto penalty = static_cast<int32_t>(sequence_param_int(launch, "nw_borders", 2));
  for (int i = 0; i < cols; ++i) {
    score[i] = -i * penalty;
    score[i * cols] = -i * penalty;
  }
  for (int row = 1; row < cols; ++row) {
    for (int col = 1; col < cols; ++col) {
      const int at = row * cols + col;
      score[at] = std::max(
          {score[at - cols - 1] + similarity[at], score[at - 1] - penalty, score[at - cols] - penalty});
    }
  }
}

}  // namespace simtlm::workloads
