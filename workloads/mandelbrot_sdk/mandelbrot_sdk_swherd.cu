// mandelbrot_sdk (mandelbrot_sdk.cu) with software branch herding (branch-data-herding paper, Sections II-III:
// the "software overhead" series of Figure 3 with every branch herded): each of the 20 unrolled escape tests
// and the loop's exit are decided by the strict majority of the warp's active lanes (a __ballot_sync of the
// condition over __activemask(), counted with __popc), so the whole warp escapes, or steps on, together and
// every lane of a warp returns the same count. Lanes that escaped while most did not keep stepping; lanes
// that have not escaped while most did return early. The image differs from mandelbrot_sdk's on purpose.
//
// Parameters, pixel mapping, budget and colouring are mandelbrot_sdk's. The bounds check is not herded
// (lanes outside the image return before the escape loop and do not vote). The escape test is written
// !(xx + yy < 4), the same as mandelbrot_sdk's xx + yy >= 4 for every value that kernel sees, so a lane that
// escaped long ago and whose |z|^2 has overflowed to inf or NaN still votes "escaped" (NaN >= 4 is false).

constexpr int kUnroll = 20;

// True for every active lane of the warp when more than half of them have `condition`.
__device__ bool herd(bool condition) {
  const unsigned lanes = __activemask();
  return 2 * __popc(__ballot_sync(lanes, condition)) > __popc(lanes);
}

#define ESCAPE_STEP(k)                                      \
  if (herd(!(xx + yy < 4.0f))) return budget - done - (k); \
  y = x * y * 2.0f + c_im;                                  \
  x = xx - yy + c_re;                                       \
  yy = y * y;                                               \
  xx = x * x;

// As mandelbrot_sdk's escape_count, with every escape test and the loop exit herded.
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
  } while (herd(done < budget && xx + yy < 4.0f));
  return budget - done;
}

#undef ESCAPE_STEP

// mandelbrot_sdk's kernel and parameters under its own name.
extern "C" __global__ void mandelbrot_sdk_swherd(uchar4* pixels, int width, int height, int crunch,
                                                 float x_center, float y_center, float step, float julia_re,
                                                 float julia_im, int is_julia, int colour_r, int colour_g,
                                                 int colour_b) {
  const int px = blockIdx.x * blockDim.x + threadIdx.x;
  const int py = blockIdx.y * blockDim.y + threadIdx.y;
  if (px < width && py < height) {
    const float x_pos = x_center + static_cast<float>(px - width / 2) * step;
    const float y_pos = y_center + static_cast<float>(py - height / 2) * step;
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
