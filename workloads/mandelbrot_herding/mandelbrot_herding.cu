// Mandelbrot with software branch herding (branch-data-herding paper): every iteration the warp
// votes on "this pixel has not escaped" and all lanes follow the strict majority, so the loop
// never diverges. The output differs from plain mandelbrot on purpose: every pixel of a warp
// gets the warp's iteration count. The block size must be a multiple of 32 (full-warp votes).

constexpr int kHalfWarp = 16;

extern "C" __global__ void mandelbrot_herding(unsigned char* iterations, int width, int height,
                                              int max_iterations, float x_origin, float y_origin,
                                              float step) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  // No early return: lanes outside the image must still take part in the votes.
  const bool in_image = x < width && y < height;
  const float c_re = x_origin + x * step;
  const float c_im = y_origin + y * step;
  float z_re = 0.0f, z_im = 0.0f;
  int count = 0;
  while (count < max_iterations) {
    const bool bounded = in_image && z_re * z_re + z_im * z_im <= 4.0f;
    if (__popc(__ballot_sync(0xffffffffu, bounded)) <= kHalfWarp) break;
    const float next_re = z_re * z_re - z_im * z_im + c_re;
    z_im = 2.0f * z_re * z_im + c_im;
    z_re = next_re;
    ++count;
  }
  if (in_image) iterations[y * width + x] = static_cast<unsigned char>(count);
}
