// Sobel edge magnitude on an 8-bit image. Divergence: the image bounds check and the border
// pixels, which are written as 0. sqrtf is IEEE (-prec-sqrt=true), so the host matches.

extern "C" __global__ void sobel(const unsigned char* image, unsigned char* edges, int width, int height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  if (x == 0 || y == 0 || x == width - 1 || y == height - 1) {
    edges[y * width + x] = 0;
    return;
  }
  auto at = [&](int dx, int dy) { return static_cast<int>(image[(y + dy) * width + x + dx]); };
  const int gx = (at(1, -1) + 2 * at(1, 0) + at(1, 1)) - (at(-1, -1) + 2 * at(-1, 0) + at(-1, 1));
  const int gy = (at(-1, 1) + 2 * at(0, 1) + at(1, 1)) - (at(-1, -1) + 2 * at(0, -1) + at(1, -1));
  const float magnitude = sqrtf(static_cast<float>(gx * gx + gy * gy));
  edges[y * width + x] = static_cast<unsigned char>(magnitude > 255.0f ? 255 : static_cast<int>(magnitude));
}
