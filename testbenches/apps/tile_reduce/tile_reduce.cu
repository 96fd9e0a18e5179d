// A CUDA-samples-like reduction and scan: tiles of 16 threads reduce with cooperative groups, the tile sums
// meet in dynamic shared memory of doubles (behind a static counter, so the extern window must be
// aligned), and warp 0 finishes with shuffles. A second kernel counts equal keys with __match_any_sync, and
// a third does a block-wide inclusive scan of float4 values in dynamic shared memory.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__global__ void reduce_tiles(const float* in, double* block_sums, int n) {
  extern __shared__ double tile_sums[];
  __shared__ int tiles_done;
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
  if (threadIdx.x == 0) tiles_done = 0;
  block.sync();
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  const double v = k < n ? double(in[k]) : 0.0;
  const double tile_sum = cg::reduce(tile, v, cg::plus<double>());
  if (tile.thread_rank() == 0) {
    tile_sums[tile.meta_group_rank()] = tile_sum;
    atomicAdd(&tiles_done, 1);
  }
  block.sync();
  if (threadIdx.x < 32) {
    const int tiles = blockDim.x / 16;
    double s = threadIdx.x < tiles ? tile_sums[threadIdx.x] : 0.0;
    for (int offset = 16; offset > 0; offset /= 2) s += __shfl_down_sync(0xffffffffu, s, offset);
    if (threadIdx.x == 0) block_sums[blockIdx.x] = s + double(tiles_done - tiles);
  }
}

// counts[k] = how many lanes of k's warp (among the active ones) hold the same key; leaders[k] = 1 for the
// lowest such lane.
__global__ void count_keys(const int* keys, int* counts, int* leaders, int n) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  const unsigned active = __activemask();
  const unsigned peers = __match_any_sync(active, keys[k]);
  const int lane = threadIdx.x & 31;
  counts[k] = __popc(peers);
  leaders[k] = (__ffs(peers) - 1) == lane ? 1 : 0;
}

// Inclusive scan of float4 lanes (component-wise) within each CTA, Hillis-Steele in dynamic shared memory.
__global__ void scan_float4(const float4* in, float4* out, int n) {
  extern __shared__ float4 scan_buf[];
  const int t = threadIdx.x;
  const int k = blockIdx.x * blockDim.x + t;
  scan_buf[t] = k < n ? in[k] : make_float4(0.f, 0.f, 0.f, 0.f);
  __syncthreads();
  for (int offset = 1; offset < blockDim.x; offset *= 2) {
    float4 add = make_float4(0.f, 0.f, 0.f, 0.f);
    if (t >= offset) add = scan_buf[t - offset];
    __syncthreads();
    scan_buf[t].x += add.x;
    scan_buf[t].y += add.y;
    scan_buf[t].z += add.z;
    scan_buf[t].w += add.w;
    __syncthreads();
  }
  if (k < n) out[k] = scan_buf[t];
}
