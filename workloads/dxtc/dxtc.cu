// DXT1 (BC1) compression of an RGBA image, one thread per texel and 16 lanes per 4x4 block. The block's
// end points are the corners of its colour bounding box (per-channel max and min, found with xor
// shuffles inside the 16 lanes), quantised to RGB565; each texel then takes the index of the nearest
// of the four palette colours (squared RGB distance, data-dependent comparisons). A flat block (both
// end points equal after quantisation) skips the palette and keeps index 0: the two 16-lane blocks of
// a warp disagree on that branch where flat and textured blocks meet. Output per block: two u32,
// (c0 | c1 << 16) and the 32 index bits (texel t at bits 2t, 2t + 1).

constexpr int kTexels = 16;  // per 4x4 block; also the shuffle width
constexpr unsigned kFullWarp = 0xffffffffu;

__device__ unsigned to_rgb565(int r, int g, int b) {
  return (static_cast<unsigned>(r >> 3) << 11) | (static_cast<unsigned>(g >> 2) << 5) |
         static_cast<unsigned>(b >> 3);
}

// The 8-bit colour a decoder rebuilds from RGB565 (high bits replicated into the low ones).
__device__ void from_rgb565(unsigned c, int& r, int& g, int& b) {
  const int r5 = c >> 11, g6 = (c >> 5) & 63, b5 = c & 31;
  r = (r5 << 3) | (r5 >> 2);
  g = (g6 << 2) | (g6 >> 4);
  b = (b5 << 3) | (b5 >> 2);
}

__device__ int squared_distance(int r, int g, int b, int pr, int pg, int pb) {
  return (r - pr) * (r - pr) + (g - pg) * (g - pg) + (b - pb) * (b - pb);
}

// width and height must be multiples of 4. Every lane runs to the end (no early return) so the
// full-warp shuffles always see 32 lanes; lanes past the last block redo the last block's work.
extern "C" __global__ void dxt1_compress(const unsigned* rgba, unsigned* blocks, int width, int height) {
  const int blocks_x = width / 4;
  const int block_count = blocks_x * (height / 4);
  const int texel = threadIdx.x % kTexels;
  const int global_block = (blockIdx.x * blockDim.x + threadIdx.x) / kTexels;
  const int block = min(global_block, block_count - 1);
  const int x = (block % blocks_x) * 4 + texel % 4;
  const int y = (block / blocks_x) * 4 + texel / 4;
  const unsigned pixel = rgba[y * width + x];
  const int r = pixel & 255, g = (pixel >> 8) & 255, b = (pixel >> 16) & 255;

  int r_min = r, g_min = g, b_min = b, r_max = r, g_max = g, b_max = b;
  for (int lane_mask = kTexels / 2; lane_mask > 0; lane_mask /= 2) {
    r_min = min(r_min, __shfl_xor_sync(kFullWarp, r_min, lane_mask));
    g_min = min(g_min, __shfl_xor_sync(kFullWarp, g_min, lane_mask));
    b_min = min(b_min, __shfl_xor_sync(kFullWarp, b_min, lane_mask));
    r_max = max(r_max, __shfl_xor_sync(kFullWarp, r_max, lane_mask));
    g_max = max(g_max, __shfl_xor_sync(kFullWarp, g_max, lane_mask));
    b_max = max(b_max, __shfl_xor_sync(kFullWarp, b_max, lane_mask));
  }
  // Channel-wise max >= min, so c0 >= c1 and c0 > c1 unless the block is flat: four-colour mode.
  const unsigned c0 = to_rgb565(r_max, g_max, b_max);
  const unsigned c1 = to_rgb565(r_min, g_min, b_min);

  unsigned index = 0;
  if (c0 != c1) {
    int r0, g0, b0, r1, g1, b1;
    from_rgb565(c0, r0, g0, b0);
    from_rgb565(c1, r1, g1, b1);
    int best = squared_distance(r, g, b, r0, g0, b0);
    const int to_c1 = squared_distance(r, g, b, r1, g1, b1);
    if (to_c1 < best) {
      best = to_c1;
      index = 1;
    }
    const int to_c2 = squared_distance(r, g, b, (2 * r0 + r1) / 3, (2 * g0 + g1) / 3, (2 * b0 + b1) / 3);
    if (to_c2 < best) {
      best = to_c2;
      index = 2;
    }
    const int to_c3 = squared_distance(r, g, b, (r0 + 2 * r1) / 3, (g0 + 2 * g1) / 3, (b0 + 2 * b1) / 3);
    if (to_c3 < best) index = 3;
  }
  unsigned bits = index << (2 * texel);
  for (int lane_mask = kTexels / 2; lane_mask > 0; lane_mask /= 2) {
    bits |= __shfl_xor_sync(kFullWarp, bits, lane_mask);
  }
  if (texel == 0 && global_block < block_count) {
    blocks[2 * block] = c0 | (c1 << 16);
    blocks[2 * block + 1] = bits;
  }
}
