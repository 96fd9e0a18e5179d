// Reference of workloads/needleman_wunsch: the score recurrence row by row over the whole matrix. Tiles and
// waves only reorder independent cells, so the kernels' result is this one.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "workloads/reference/sequence_params.hpp"
#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {

void needleman_wunsch(const launch::Launch& launch, Buffers& buffers) {
  const uint64_t cells = buffers.count("score") ? count_of<int32_t>(buffers, "score") : 0;
  const auto cols = static_cast<int>(std::lround(std::sqrt(double(cells))));
  const uint64_t square = elements(cols, cols);
  int32_t* score = checked_view<int32_t>(launch, buffers, "score", square, "a square matrix");
  if (square != cells)
    reference_error(launch, fmt::format("buffer score holds {} elements, not a square matrix", cells));
  const int32_t* similarity = checked_view<int32_t>(launch, buffers, "similarity", square, "as score");
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
