// SAD block matching (H.264-style motion estimation): one CTA per 4x4 block of the current frame, one
// thread per candidate displacement (dx, dy) in [-range, range]^2. A thread sums |current - reference|
// over the block displaced into the reference frame. A candidate whose displaced block leaves the
// frame gets kOutside instead: that bounds check is the divergent branch, taken by part of a warp only
// for blocks near the frame edges (dx varies fastest across lanes, so left and right edges split
// every warp, top and bottom edges split the warps of the outermost dy rows).

constexpr int kBlock = 4;
constexpr unsigned short kOutside = 0xffff;  // larger than any 4x4 SAD (16 * 255)

extern "C" __global__ void sad_4x4(const unsigned char* current, const unsigned char* reference,
                                   unsigned short* sads, int width, int height, int range) {
  const int side = 2 * range + 1;
  const int candidate = threadIdx.x;
  if (candidate >= side * side) return;
  const int blocks_x = width / kBlock;
  const int block_x = (blockIdx.x % blocks_x) * kBlock;
  const int block_y = (blockIdx.x / blocks_x) * kBlock;
  const int ref_x = block_x + candidate % side - range;
  const int ref_y = block_y + candidate / side - range;
  unsigned short result = kOutside;
  if (ref_x >= 0 && ref_y >= 0 && ref_x + kBlock <= width && ref_y + kBlock <= height) {
    int sum = 0;
    for (int row = 0; row < kBlock; ++row) {
      for (int col = 0; col < kBlock; ++col) {
        const int difference =
            current[(block_y + row) * width + block_x + col] - reference[(ref_y + row) * width + ref_x + col];
        sum += abs(difference);
      }
    }
    result = static_cast<unsigned short>(sum);
  }
  sads[blockIdx.x * side * side + candidate] = result;
}
