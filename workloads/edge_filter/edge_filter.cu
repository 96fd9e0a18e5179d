// 3x3 edge detection: per output pixel the gradient magnitude |gx| + |gy| of Sobel-weighted differences,
// saturated to 255; border pixels are 0. One independent task per pixel (1-D grid, row-major), so the kernel
// runs the same as a grid or as a "parallel for" of tasks.
extern "C" __global__ void edge_filter(const unsigned char* image, unsigned char* edges, int width,
                                       int height) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= width * height) return;
  const int y = p / width;
  const int x = p - y * width;
  if (x == 0 || y == 0 || x == width - 1 || y == height - 1) {
    edges[p] = 0;
    return;
  }
  const unsigned char* above = image + p - width;
  const unsigned char* row = image + p;
  const unsigned char* below = image + p + width;
  const int nw = above[-1], n = above[0], ne = above[1];
  const int w = row[-1], e = row[1];
  const int sw = below[-1], s = below[0], se = below[1];
  const int gx = (ne + 2 * e + se) - (nw + 2 * w + sw);
  const int gy = (sw + 2 * s + se) - (nw + 2 * n + ne);
  const int magnitude = abs(gx) + abs(gy);
  edges[p] = static_cast<unsigned char>(magnitude > 255 ? 255 : magnitude);
}
