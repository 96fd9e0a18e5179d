// The first-pass kernel of the CUDA SDK's Mandelbrot sample, written for this project: one thread per pixel
// on 16x16 CTAs, the image bounds check, then an escape-time function whose loop body is unrolled 20 times
// by hand. Each of the 20 steps first tests whether the point escaped (the test the branch-herding paper
// herds: 20 static branches plus the loop's exit, divergent where neighbouring pixels escape after different
// step counts) and returns the remaining budget if so. is_julia selects the Julia set (z0 = pixel,
// c = julia_re + julia_im i) or the Mandelbrot set (z0 = 0, c = pixel).
//
// The count equals that of the rolled loop of the paper's Figure 1, `i = crunch; while (--i && xx + yy < 4)
// { step } return i;`, i.e. crunch - 1 - steps, where the loop stops at the first |z|^2 >= 4 or after
// crunch - 1 steps: the budget is crunch - 1 (the rolled loop's first pre-decrement), "escaped" is
// !(xx + yy < 4) written xx + yy >= 4, and a count below zero (steps past the budget inside the last block
// of 20) becomes 0, the rolled loop's "budget used up". workloads/reference/mandelbrot_sdk.cpp runs the
// rolled loop for every pixel, so a bit-exact match shows the two agree.
//
// Where the SDK counts the budget down (i -= 20), this loop counts the steps up (done += 20, the same
// i = budget - done): nvcc compiles a count-down into a copy of the counter, which the herding-safety
// analysis does not take for a loop counter, and it would then refuse to herd any escape test; counted up,
// the exit `done < budget` is bounded and the same in every lane, so all 21 escape branches are safe to
// herd, as the paper's analysis found for Mandelbrot.
//
// The pixel's colour is the SDK's: uchar4 (m * colour_r, m * colour_g, m * colour_b, 0) with 8-bit
// wrap-around, m the count.

constexpr int kUnroll = 20;

#define ESCAPE_STEP(k)                             \
  if (xx + yy >= 4.0f) return budget - done - (k); \
  y = x * y * 2.0f + c_im;                         \
  x = xx - yy + c_re;                              \
  yy = y * y;                                      \
  xx = x * x;

// Steps z <- z^2 + c from z = x + y i until |z|^2 >= 4 or the budget is spent; returns budget - steps.
__device__ int escape_count(float x, float y, float c_re, float c_im, int crunch) {
  float xx = x * x, yy = y * y;
  const int budget = crunch - 1;  // the rolled loop's first --i
  int done = 0;                   // steps taken before this block of kUnroll
  do {
    ESCAPE_STEP(0)
    ESCAPE_STEP(1)
    ESCAPE_STEP(2)
    ESCAPE_STEP(3)
    ESCAPE_STEP(4)
    ESCAPE_STEP(5)
    ESCAPE_STEP(6)
    ESCAPE_STEP(7)
    ESCAPE_STEP(8)
    ESCAPE_STEP(9)
    ESCAPE_STEP(10)
    ESCAPE_STEP(11)
    ESCAPE_STEP(12)
    ESCAPE_STEP(13)
    ESCAPE_STEP(14)
    ESCAPE_STEP(15)
    ESCAPE_STEP(16)
    ESCAPE_STEP(17)
    ESCAPE_STEP(18)
    ESCAPE_STEP(19)
    done += kUnroll;
  } while (done < budget && xx + yy < 4.0f);
  return budget - done;
}

#undef ESCAPE_STEP

// Pixel (px, py) is at (x_center + (px - width / 2) * step, y_center + (py - height / 2) * step), the
// differences converted to float before the product; the SDK's scale is step * width.
extern "C" __global__ void mandelbrot_sdk(uchar4* pixels, int width, int height, int crunch, float x_center,
                                          float y_center, float step, float julia_re, float julia_im,
                                          int is_julia, int colour_r, int colour_g, int colour_b) {
  const int px = blockIdx.x * blockDim.x + threadIdx.x;
  const int py = blockIdx.y * blockDim.y + threadIdx.y;
  if (px < width && py < height) {
    const float x_pos = x_center + static_cast<float>(px - width / 2) * step;
    const float y_pos = y_center + static_cast<float>(py - height / 2) * step;
    // Julia: z0 = pixel, c = parameter; Mandelbrot: z0 = 0, c = pixel (one inlined escape loop for both).
    const float z_re = is_julia ? x_pos : 0.0f, z_im = is_julia ? y_pos : 0.0f;
    const float c_re = is_julia ? julia_re : x_pos, c_im = is_julia ? julia_im : y_pos;
    const int m = max(escape_count(z_re, z_im, c_re, c_im, crunch), 0);
    uchar4 colour;
    colour.x = static_cast<unsigned char>(m * colour_r);
    colour.y = static_cast<unsigned char>(m * colour_g);
    colour.z = static_cast<unsigned char>(m * colour_b);
    colour.w = 0;
    pixels[py * width + px] = colour;
  }
}
