// Radix-2 decimation-in-time FFT of n = 2^log2n complex f32 points (interleaved re, im), one data-parallel
// task per element or butterfly, as a launch sequence: a twiddle table (own polynomial sin/cos), a
// bit-reversal permutation, then one launch per butterfly stage. No barriers, shared memory or warp
// intrinsics, so every launch also runs as a "parallel for" of independent tasks.

// sin and cos of x in [0, pi/4] by truncated Taylor series in Horner form (error below 1e-7 there).
__device__ __forceinline__ float fft_sin_quarter(float x) {
  const float x2 = x * x;
  return x *
         (1.0f - x2 * (1.0f / 6.0f - x2 * (1.0f / 120.0f - x2 * (1.0f / 5040.0f - x2 * (1.0f / 362880.0f)))));
}

__device__ __forceinline__ float fft_cos_quarter(float x) {
  const float x2 = x * x;
  return 1.0f - x2 * (0.5f - x2 * (1.0f / 24.0f - x2 * (1.0f / 720.0f - x2 * (1.0f / 40320.0f))));
}

// twiddles[k] = exp(-2 pi i k / n) for k < n / 2. The angle is reduced by symmetry to [0, pi/4], where the
// short series are accurate; nvcc turns the octant choices into selects.
extern "C" __global__ void fft_twiddles(float2* twiddles, int half_n, int log2n) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= half_n) return;
  // Angles in units of a turn's 2^log2n-th part: quarter is pi/2, eighth is pi/4.
  const int quarter = half_n >> 1;
  const int eighth = half_n >> 2;
  const bool second_quadrant = k > quarter;
  const int in_quadrant = second_quadrant ? half_n - k : k;  // cos flips sign, sin stays
  const bool upper_octant = in_quadrant > eighth;
  const int reduced = upper_octant ? quarter - in_quadrant : in_quadrant;  // sin and cos swap
  const float step = 6.28318530717958647692f / static_cast<float>(1 << log2n);
  const float angle = static_cast<float>(reduced) * step;
  float c = fft_cos_quarter(angle);
  float s = fft_sin_quarter(angle);
  if (upper_octant) {
    const float t = c;
    c = s;
    s = t;
  }
  if (second_quadrant) c = -c;
  twiddles[k] = make_float2(c, -s);
}

// data[reverse(k)] = input[k]: sequential loads, scattered stores.
extern "C" __global__ void fft_bit_reverse(const float2* input, float2* data, int n, int log2n) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  data[__brev(static_cast<unsigned>(k)) >> (32 - log2n)] = input[k];
}

// Stage `stage` (span 2^stage): task t combines elements i0 and i0 + span of its group in place. Each
// element belongs to exactly one butterfly per stage, so tasks never share data within a launch.
extern "C" __global__ void fft_butterfly(float2* data, const float2* twiddles, int half_n, int log2n,
                                         int stage) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= half_n) return;
  const int span = 1 << stage;
  const int j = t & (span - 1);
  const int i0 = ((t >> stage) << (stage + 1)) + j;
  const int i1 = i0 + span;
  const float2 w = twiddles[j << (log2n - 1 - stage)];
  const float2 a = data[i0];
  const float2 b = data[i1];
  const float re = w.x * b.x - w.y * b.y;
  const float im = w.x * b.y + w.y * b.x;
  data[i0] = make_float2(a.x + re, a.y + im);
  data[i1] = make_float2(a.x - re, a.y - im);
}
