// Winning-path search as dynamic programming over a board of `rows` steps of `width` choices: one launch per
// row, one task per cell. A cell's best score is its own gain plus the best of the three cells of the row
// before that can reach it (j - 1, j, j + 1, clamped at the board's edges); `choice` records which one
// (-1, 0, +1). A negative gain marks a blocked cell: no path enters it, and a cell whose three predecessors
// are all blocked stays unreachable. Rows are independent tasks, so a row launch runs as an ordinary grid
// or in task mode.

constexpr int kUnreachable = -(1 << 30);

extern "C" __global__ void short_path_row(const int* gain, int* best, signed char* choice, int width,
                                          int row) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= width) return;
  const int cell = row * width + j;
  const int own = gain[cell];
  if (row == 0) {
    best[cell] = own < 0 ? kUnreachable : own;
    choice[cell] = 0;
    return;
  }
  if (own < 0) {
    best[cell] = kUnreachable;
    choice[cell] = 0;
    return;
  }
  const int* previous = best + (row - 1) * width;
  int value = previous[j];
  int from = 0;
  // Ties keep the straight move, then the left one: the first maximum in the order 0, -1, +1.
  if (j > 0) {
    const int left = previous[j - 1];
    if (left > value) {
      value = left;
      from = -1;
    }
  }
  if (j + 1 < width) {
    const int right = previous[j + 1];
    if (right > value) {
      value = right;
      from = 1;
    }
  }
  if (value == kUnreachable) {
    best[cell] = kUnreachable;
    choice[cell] = 0;
  } else {
    best[cell] = value + own;
    choice[cell] = static_cast<signed char>(from);
  }
}
