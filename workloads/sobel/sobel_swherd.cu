// Sobel (sobel.cu) with software branch herding (branch-data-herding paper, Fig. 9): the border branch
// and the clamp of magnitudes above 255 follow the strict majority of the warp's active lanes. A
// minority pixel above 255 then wraps around modulo 256 instead of saturating (the paper's "roll
// over"), a minority border pixel gets a gradient and a minority interior pixel gets 0. The stencil
// clamps its coordinates to the image, as the SDK's texture reads do, so border pixels herded onto the
// gradient path stay inside the image. Lanes outside the image return first and do not vote.

__device__ bool herd(bool condition) {
  const unsigned lanes = __activemask();
  return 2 * __popc(__ballot_sync(lanes, condition)) > __popc(lanes);
}

extern "C" __global__ void sobel_swherd(const unsigned char* image, unsigned char* edges, int width,
                                        int height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  if (herd(x == 0 || y == 0 || x == width - 1 || y == height - 1)) {
    edges[y * width + x] = 0;
    return;
  }
  auto at = [&](int dx, int dy) {
    const int sx = min(max(x + dx, 0), width - 1);
    const int sy = min(max(y + dy, 0), height - 1);
    return static_cast<int>(image[sy * width + sx]);
  };
  const int gx = (at(1, -1) + 2 * at(1, 0) + at(1, 1)) - (at(-1, -1) + 2 * at(-1, 0) + at(-1, 1));
  const int gy = (at(-1, 1) + 2 * at(0, 1) + at(1, 1)) - (at(-1, -1) + 2 * at(0, -1) + at(1, -1));
  const float magnitude = sqrtf(static_cast<float>(gx * gx + gy * gy));
  if (herd(magnitude > 255.0f)) {
    edges[y * width + x] = 255;
  } else {
    edges[y * width + x] = static_cast<unsigned char>(static_cast<int>(magnitude));
  }
}
