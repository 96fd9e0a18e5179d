// Escape-time Mandelbrot set: per-pixel trip counts differ, so warps diverge in the loop; the
// bounds check diverges on the image edge when the size is not a multiple of the block.

extern "C" __global__ void mandelbrot(unsigned char* iterations, int width, int height, int max_iterations,
                                      float x_origin, float y_origin, float step) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) {
    const float c_re = x_origin + x * step;
    const float c_im = y_origin + y * step;
    float z_re = 0.0f, z_im = 0.0f;
    int count = 0;
    while (count < max_iterations && z_re * z_re + z_im * z_im <= 4.0f) {
      const float next_re = z_re * z_re - z_im * z_im + c_re;
      z_im = 2.0f * z_re * z_im + c_im;
      z_re = next_re;
      ++count;
    }
    iterations[y * width + x] = static_cast<unsigned char>(count);
  }
}
