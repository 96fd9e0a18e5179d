// sad_4x4 (sad.cu) with software branch herding (branch-data-herding paper, Fig. 9): the frame-edge
// bounds check follows the strict majority of the warp's active lanes. A minority candidate that leaves
// the frame then gets a SAD computed with clamp-to-edge reference pixels (the SDK texture addressing,
// which keeps every load inside the frame), and a minority candidate inside the frame is reported as
// kOutside. The candidate-count check is not herded: lanes past the last candidate have no output slot.

constexpr int kBlock = 4;
constexpr unsigned short kOutside = 0xffff;

__device__ bool herd(bool condition) {
  const unsigned lanes = __activemask();
  return 2 * __popc(__ballot_sync(lanes, condition)) > __popc(lanes);
}

extern "C" __global__ void sad_4x4_swherd(const unsigned char* current, const unsigned char* reference,
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
  if (herd(ref_x >= 0 && ref_y >= 0 && ref_x + kBlock <= width && ref_y + kBlock <= height)) {
    int sum = 0;
    for (int row = 0; row < kBlock; ++row) {
      const int y = min(max(ref_y + row, 0), height - 1);
      for (int col = 0; col < kBlock; ++col) {
        const int x = min(max(ref_x + col, 0), width - 1);
        sum += abs(current[(block_y + row) * width + block_x + col] - reference[y * width + x]);
      }
    }
    result = static_cast<unsigned short>(sum);
  }
  sads[blockIdx.x * side * side + candidate] = result;
}
