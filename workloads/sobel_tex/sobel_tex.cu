// Sobel edge magnitude as workloads/sobel computes it, with the pixels read through a texture object
// (tex2D<unsigned char>: point filtering, unnormalized coordinates, clamp addressing), as CUDA programs
// that filter images usually read them. Divergence: the image bounds check and the border pixels, which
// are written as 0. Inside the border every read is inside the image, so the edges equal sobel's; a herded
// border lane reads clamped pixels instead of faulting.

extern "C" __global__ void sobel_tex(cudaTextureObject_t image, unsigned char* edges, int width, int height) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  if (x == 0 || y == 0 || x == width - 1 || y == height - 1) {
    edges[y * width + x] = 0;
    return;
  }
  auto at = [&](int dx, int dy) {
    return static_cast<int>(tex2D<unsigned char>(image, static_cast<float>(x + dx), static_cast<float>(y + dy)));
  };
  const int gx = (at(1, -1) + 2 * at(1, 0) + at(1, 1)) - (at(-1, -1) + 2 * at(-1, 0) + at(-1, 1));
  const int gy = (at(-1, 1) + 2 * at(0, 1) + at(1, 1)) - (at(-1, -1) + 2 * at(0, -1) + at(1, -1));
  const float magnitude = sqrtf(static_cast<float>(gx * gx + gy * gy));
  edges[y * width + x] = static_cast<unsigned char>(magnitude > 255.0f ? 255 : static_cast<int>(magnitude));
}
