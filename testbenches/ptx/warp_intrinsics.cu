// Warp intrinsics in diverged branches and partial warps (testbenches/unit/test_ptx_warp_intrinsics.cpp).
// Launched with 48 threads per CTA, so warp 1 holds 16 threads. Each thread writes `kOut` words.
#include <cstdint>

constexpr int kOut = 16;

// Threads with tid % 3 != 0 take part; the others write only the mask they would have used (0).
extern "C" __global__ void match_and_vote(const unsigned* __restrict__ keys,
                                          const unsigned long long* __restrict__ wide_keys, unsigned* out) {
  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned* mine = out + tid * kOut;
  const unsigned key = keys[tid];
  const unsigned long long wide = wide_keys[tid];
  if (tid % 3 != 0) {
    const unsigned members = __activemask();
    int all_same = 0;
    int all_same_wide = 0;
    mine[0] = members;
    mine[1] = __match_any_sync(members, key);
    mine[2] = __match_all_sync(members, key, &all_same);
    mine[3] = all_same;
    mine[4] = __match_any_sync(members, wide);
    mine[5] = __match_all_sync(members, wide, &all_same_wide);
    mine[6] = all_same_wide;
    mine[7] = __ballot_sync(members, key & 1);
    mine[8] = __all_sync(members, key < 1000);
    mine[9] = __any_sync(members, key == 7);
    mine[10] = __uni_sync(members, key & 2);
    // Lanes with the same key form groups: the value matches within its group only.
    const unsigned group = __match_any_sync(members, key & 3);
    mine[11] = __match_all_sync(group, key & 3, &all_same);
    mine[12] = all_same;
  } else {
    mine[0] = 0;
  }
}

// Reductions over the threads of each diverged half (odd and even lanes).
extern "C" __global__ void reduce_halves(const int* __restrict__ values, unsigned* out) {
  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned* mine = out + tid * kOut;
  const int v = values[tid];
  const unsigned u = static_cast<unsigned>(v);
  if (threadIdx.x & 1) {
    const unsigned members = __activemask();
    mine[0] = members;
    mine[1] = __reduce_add_sync(members, u);
    mine[2] = __reduce_min_sync(members, u);
    mine[3] = __reduce_max_sync(members, u);
    mine[4] = static_cast<unsigned>(__reduce_add_sync(members, v));
    mine[5] = static_cast<unsigned>(__reduce_min_sync(members, v));
    mine[6] = static_cast<unsigned>(__reduce_max_sync(members, v));
    mine[7] = __reduce_and_sync(members, u);
    mine[8] = __reduce_or_sync(members, u);
    mine[9] = __reduce_xor_sync(members, u);
  } else {
    const unsigned members = __activemask();
    mine[0] = members;
    mine[1] = __reduce_add_sync(members, u);
    mine[5] = static_cast<unsigned>(__reduce_min_sync(members, v));
    mine[9] = __reduce_xor_sync(members, u);
  }
}

// Shuffles of every mode with segments (width < 32) over the whole (possibly partial) warp, then bit
// operations: fns, brev, bfind (signed, unsigned, 32 and 64 bits, .shiftamt) and a nanosleep.
extern "C" __global__ void shuffle_and_bits(const unsigned* __restrict__ values, unsigned* out) {
  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned* mine = out + tid * kOut;
  const unsigned v = values[tid];
  const unsigned members = __ballot_sync(0xffffffffu, true);
  mine[0] = members;
  mine[1] = __shfl_sync(members, v, 5, 8);
  mine[2] = __shfl_up_sync(members, v, 3, 16);
  mine[3] = __shfl_down_sync(members, v, 2);
  mine[4] = __shfl_xor_sync(members, v, 9);
  mine[5] = __shfl_sync(members, v, 37);  // source lane 37 wraps to 5 (only the low 5 bits count)
  mine[6] = __fns(v, threadIdx.x % 32, 2);
  mine[7] = __fns(v, threadIdx.x % 32, -3);
  mine[8] = __fns(v, 7, 0);
  mine[9] = __brev(v);
  mine[10] = __ffs(v);  // brev + bfind.shiftamt
  int signed_msb;
  asm("bfind.s32 %0, %1;" : "=r"(signed_msb) : "r"(v));
  mine[11] = static_cast<unsigned>(signed_msb);
  unsigned wide_msb;
  const unsigned long long wide = (static_cast<unsigned long long>(v) << 20) | tid;
  asm("bfind.u64 %0, %1;" : "=r"(wide_msb) : "l"(wide));
  mine[12] = wide_msb;
  unsigned wide_signed_shift;
  asm("bfind.shiftamt.s64 %0, %1;" : "=r"(wide_signed_shift) : "l"(static_cast<long long>(wide) - (1ll << 40)));
  mine[13] = wide_signed_shift;
  __nanosleep(v % 64);
  mine[14] = __activemask();
}
