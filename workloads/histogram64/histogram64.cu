// 64-bin histogram of bytes (bin = byte / 4) in two kernels, in the manner of the SDK's histogram64
// before shared-memory atomics existed. histogram64_partial: each warp owns a 64-bin sub-histogram in
// shared memory and adds every byte with a tagged read-modify-write that repeats until this lane's
// write survived; lanes of a warp that hit the same bin collide and retry, so the retry loop in
// add_to_warp_histogram is the data-dependent divergent branch. Each CTA then writes the sum of its
// warps' sub-histograms to partials. merge_histogram64: one CTA per bin sums that bin over all partial
// histograms (strided, uncoalesced loads) with a shared-memory tree.

constexpr int kBins = 64;
constexpr int kWarpsPerCta = 4;               // histogram64_partial needs blockDim.x == 32 * kWarpsPerCta
constexpr int kMergeThreads = 32;             // merge_histogram64 needs blockDim.x == kMergeThreads
constexpr unsigned kCountBits = 0x07FFFFFFu;  // the top 5 bits hold the writing lane's tag

// Counts survive because, of several lanes storing to one address, exactly one store lands; the lanes
// whose tag did not land try again with the updated count.
__device__ void add_to_warp_histogram(volatile unsigned* warp_bins, unsigned bin, unsigned lane_tag) {
  unsigned tagged;
  do {
    tagged = lane_tag | ((warp_bins[bin] & kCountBits) + 1);
    warp_bins[bin] = tagged;
  } while (warp_bins[bin] != tagged);
}

extern "C" __global__ void histogram64_partial(const unsigned* words, unsigned word_count,
                                               unsigned* partials) {
  __shared__ unsigned warp_bins[kWarpsPerCta * kBins];
  const unsigned tid = threadIdx.x;
  for (unsigned i = tid; i < kWarpsPerCta * kBins; i += blockDim.x) warp_bins[i] = 0;
  __syncthreads();
  volatile unsigned* my_bins = warp_bins + (tid / 32) * kBins;
  const unsigned lane_tag = (tid % 32) << 27;
  for (unsigned i = blockIdx.x * blockDim.x + tid; i < word_count; i += gridDim.x * blockDim.x) {
    const unsigned word = words[i];
    add_to_warp_histogram(my_bins, (word >> 2) & 63u, lane_tag);
    add_to_warp_histogram(my_bins, (word >> 10) & 63u, lane_tag);
    add_to_warp_histogram(my_bins, (word >> 18) & 63u, lane_tag);
    add_to_warp_histogram(my_bins, (word >> 26) & 63u, lane_tag);
  }
  __syncthreads();
  for (unsigned bin = tid; bin < kBins; bin += blockDim.x) {
    unsigned sum = 0;
    for (int warp = 0; warp < kWarpsPerCta; ++warp) sum += warp_bins[warp * kBins + bin] & kCountBits;
    partials[blockIdx.x * kBins + bin] = sum;
  }
}

extern "C" __global__ void merge_histogram64(const unsigned* partials, unsigned partial_count,
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
