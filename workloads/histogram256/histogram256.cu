// 256-bin histogram of bytes in two kernels, in the manner of the CUDA SDK's histogram256 before
// shared-memory atomics existed. histogram256_partial: CTAs of kWarpsPerCta warps, each warp owning a
// 256-bin sub-histogram in shared memory; every thread reads 32-bit words (grid-stride loop) and adds
// their four bytes with a tagged read-modify-write that repeats until this lane's write survived. Lanes of
// a warp that hit the same bin collide and retry, so the retry loop in add_byte is the data-dependent
// divergent branch. Each CTA then writes the sum of its warps' sub-histograms to partials (256 counts per
// CTA). merge_histogram256: one CTA per bin sums that bin over all partial histograms (strided loads) with
// a shared-memory tree.

constexpr int kBins = 256;
constexpr int kWarpsPerCta = 6;               // histogram256_partial needs blockDim.x == 32 * kWarpsPerCta
constexpr int kMergeThreads = 256;            // merge_histogram256 needs blockDim.x == kMergeThreads
constexpr unsigned kCountBits = 0x07FFFFFFu;  // the top 5 bits hold the writing lane's tag

// Of several lanes storing to one shared word, exactly one store lands; a lane whose tag is not in the
// word when it reads it back lost and tries again on the updated count.
__device__ void add_byte(volatile unsigned* warp_bins, unsigned byte, unsigned lane_tag) {
  unsigned tagged;
  do {
    tagged = lane_tag | ((warp_bins[byte] & kCountBits) + 1);
    warp_bins[byte] = tagged;
  } while (warp_bins[byte] != tagged);
}

extern "C" __global__ void histogram256_partial(const unsigned* words, unsigned word_count,
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

extern "C" __global__ void merge_histogram256(const unsigned* partials, unsigned partial_count,
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
