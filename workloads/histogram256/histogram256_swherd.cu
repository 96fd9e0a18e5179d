// histogram256 (histogram256.cu) with software branch herding (branch-data-herding paper): the retry loop
// of add_byte ends when the strict majority of the warp's lanes in the loop saw their own tagged write
// survive, not when each lane did. Lanes whose write lost while most survived leave without their byte
// (the bin is undercounted); lanes whose write survived while most lost add their byte again (overcounted).
// More than 16 lanes of a warp on one bin would never end the loop (one lane wins per round); uniformly
// random bytes make that practically impossible. Kernels histogram256_swherd_partial and
// merge_histogram256_swherd: the names differ from histogram256.cu's and workloads/histogram's kernels.

constexpr int kBins = 256;
constexpr int kWarpsPerCta = 6;     // histogram256_swherd_partial needs blockDim.x == 32 * kWarpsPerCta
constexpr int kMergeThreads = 256;  // merge_histogram256_swherd needs blockDim.x == kMergeThreads
constexpr unsigned kCountBits = 0x07FFFFFFu;  // the top 5 bits hold the writing lane's tag

// As histogram256.cu's add_byte, but the warp's lanes in the loop retry together or leave together.
// True for every lane in the loop when more than half of them have `condition`.
__device__ bool herd(bool condition) {
  const unsigned lanes = __activemask();
  return 2 * __popc(__ballot_sync(lanes, condition)) > __popc(lanes);
}

__device__ void add_byte(volatile unsigned* warp_bins, unsigned byte, unsigned lane_tag) {
  unsigned tagged;
  do {
    tagged = lane_tag | ((warp_bins[byte] & kCountBits) + 1);
    warp_bins[byte] = tagged;
  } while (herd(warp_bins[byte] != tagged));
}

extern "C" __global__ void histogram256_swherd_partial(const unsigned* words, unsigned word_count,
                                                       unsigned* partials) {
  __shared__ unsigned warp_bins[kWarpsPerCta * kBins];
  const unsigned tid = threadIdx.x;
  for (unsigned i = tid; i < kWarpsPerCta * kBins; i += blockDim.x) warp_bins[i] = 0;
  __syncthreads();
  volatile unsigned* my_bins = warp_bins + (tid / 32) * kBins;
  const unsigned lane_tag = (tid % 32) << 27;
  for (unsigned i = blockIdx.x * blockDim.x + tid; i < word_count; i += gridDim.x * blockDim.x) {
    const unsigned word = words[i];
    add_byte(my_bins, word & 0xFFu, lane_tag);
    add_byte(my_bins, (word >> 8) & 0xFFu, lane_tag);
    add_byte(my_bins, (word >> 16) & 0xFFu, lane_tag);
    add_byte(my_bins, word >> 24, lane_tag);
  }
  __syncthreads();
  for (unsigned bin = tid; bin < kBins; bin += blockDim.x) {
    unsigned sum = 0;
    for (int warp = 0; warp < kWarpsPerCta; ++warp) sum += warp_bins[warp * kBins + bin] & kCountBits;
    partials[blockIdx.x * kBins + bin] = sum;
  }
}

extern "C" __global__ void merge_histogram256_swherd(const unsigned* partials, unsigned partial_count,
                                                     unsigned* bins) {
  __shared__ unsigned sums[kMergeThreads];
  const unsigned tid = threadIdx.x;
  const unsigned bin = blockIdx.x;
  unsigned sum = 0;
  for (unsigned p = tid; p < partial_count; p += blockDim.x) sum += partials[p * kBins + bin];
  sums[tid] = sum;
  __syncthreads();
  for (unsigned stride = kMergeThreads / 2; stride > 0; stride /= 2) {
    if (tid < stride) sums[tid] += sums[tid + stride];
    __syncthreads();
  }
  if (tid == 0) bins[bin] = sums[0];
}
