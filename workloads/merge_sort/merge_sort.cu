// Bottom-up merge sort of n unsigned keys, written as data-parallel tasks (one CUDA thread = one task, no
// cooperation between threads), so the same kernels run as an ordinary grid and in task mode.
//
// sort_runs: task t copies keys[t*run, (t+1)*run) into sorted and insertion-sorts that run in place. The
// inner shift loop runs as long as the loaded keys say, so lanes leave it after different trip counts.
// merge_runs: task t merges the two neighbouring sorted runs of `width` keys starting at 2*t*width of source
// into destination. Each pass doubles the width and halves the task count, so the last passes are a few long
// serial tasks. The take-left-or-right choice is a select on the loaded keys; the tail copies' trip counts
// depend on where each run ran out.

extern "C" __global__ void sort_runs(const unsigned* keys, unsigned* sorted, int n, int run) {
  const int task = blockIdx.x * blockDim.x + threadIdx.x;
  const int begin = task * run;
  if (begin >= n) return;
  const int end = min(begin + run, n);
  for (int k = begin; k < end; ++k) sorted[k] = keys[k];
  for (int k = begin + 1; k < end; ++k) {
    const unsigned key = sorted[k];
    int hole = k;
    // Shift larger keys one slot up until the key's place is found; equal keys stay in front (stable).
    while (hole > begin && sorted[hole - 1] > key) {
      sorted[hole] = sorted[hole - 1];
      --hole;
    }
    sorted[hole] = key;
  }
}

extern "C" __global__ void merge_runs(const unsigned* source, unsigned* destination, int n, int width) {
  const int task = blockIdx.x * blockDim.x + threadIdx.x;
  const int begin = 2 * task * width;
  if (begin >= n) return;
  const int middle = min(begin + width, n);
  const int end = min(begin + 2 * width, n);
  int left = begin, right = middle, out = begin;
  // Both runs are read at every step and the choice only moves one index, so the lanes of a warp stay in
  // step through the loop (its trip count is the same 2 * width minus the tail for every full pair).
  while (left < middle && right < end) {
    const unsigned a = source[left];
    const unsigned b = source[right];
    // Ties take the left run first, which keeps the sort stable.
    const bool take_right = b < a;
    destination[out++] = take_right ? b : a;
    right += take_right ? 1 : 0;
    left += take_right ? 0 : 1;
  }
  while (left < middle) destination[out++] = source[left++];
  while (right < end) destination[out++] = source[right++];
}
