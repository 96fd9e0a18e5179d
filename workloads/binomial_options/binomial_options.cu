// Binomial option pricing (branch-data-herding paper, binomialOptions): one CTA per European call option,
// a recombining tree of `steps` levels kept in shared memory. The leaves hold the payoff max(S - X, 0), a
// data-dependent choice per leaf (nvcc makes it a max, not a branch); backward induction then discounts
// one level per iteration with a barrier, and the strided inner loop keeps fewer lanes busy as the level
// shrinks. exp is a polynomial of our own, mirrored in the host reference.

constexpr int kMaxSteps = 1024;

// e^x as 2^k * e^r with |r| <= ln2 / 2: ln2 split in two so that k * ln2_high is exact for |k| < 2^11.
__device__ float exp_poly(float x) {
  const float k = floorf(x * 1.44269504f + 0.5f);
  const float r = (x - k * 0.693145752f) - k * 1.42860677e-6f;
  float p = 1.98412698e-4f;
  p = p * r + 1.38888889e-3f;
  p = p * r + 8.33333333e-3f;
  p = p * r + 4.16666667e-2f;
  p = p * r + 1.66666667e-1f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  return p * __int_as_float((static_cast<int>(k) + 127) << 23);
}

extern "C" __global__ void binomial_options(float* prices, const float* spot, const float* strike,
                                            const float* years, float rate, float volatility, int steps) {
  __shared__ float tree[2][kMaxSteps + 1];
  const int option = blockIdx.x;
  const float dt = years[option] / steps;
  const float v_dt = volatility * sqrtf(dt);
  const float r_dt = rate * dt;
  const float growth = exp_poly(r_dt), discount = exp_poly(-r_dt);
  const float up = exp_poly(v_dt), down = exp_poly(-v_dt);
  const float p_up = (growth - down) / (up - down);
  const float up_weight = p_up * discount, down_weight = (1.0f - p_up) * discount;

  const float s0 = spot[option], x = strike[option];
  for (int j = threadIdx.x; j <= steps; j += blockDim.x) {
    const float payoff = s0 * exp_poly(v_dt * (2 * j - steps)) - x;
    tree[0][j] = payoff > 0.0f ? payoff : 0.0f;
  }
  __syncthreads();
  int from = 0;
  for (int level = steps; level > 0; --level) {
    for (int j = threadIdx.x; j < level; j += blockDim.x)
      tree[1 - from][j] = up_weight * tree[from][j + 1] + down_weight * tree[from][j];
    from = 1 - from;
    __syncthreads();
  }
  if (threadIdx.x == 0) prices[option] = tree[from][0];
}
