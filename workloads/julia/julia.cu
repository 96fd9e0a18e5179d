// Escape-time Julia set for a fixed c: like mandelbrot, the pixel is the starting point z0.

extern "C" __global__ void julia(unsigned char* iterations, int width, int height, int max_iterations,
                                 float x_origin, float y_origin, float step, float c_re, float c_im) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) {
    float z_re = x_origin + x * step;
    float z_im = y_origin + y * step;
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
