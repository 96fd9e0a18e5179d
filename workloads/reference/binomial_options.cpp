// Reference of workloads/binomial_options: the kernel's exp polynomial, leaf payoffs and backward induction
// per option, with the same float operations in the same order (each level reads only the previous one,
// so the CTA's thread layout does not change the result).
#include <bit>
#include <cmath>
#include <vector>

#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {
namespace {

constexpr int kMaxSteps = 1024;  // the kernel's shared-memory tree holds kMaxSteps + 1 leaves

float exp_poly(float x) {
  const float k = std::floor(x * 1.44269504f + 0.5f);
  const float r = (x - k * 0.693145752f) - k * 1.42860677e-6f;
  float p = 1.98412698e-4f;
  p = p * r + 1.38888889e-3f;
  p = p * r + 8.33333333e-3f;
  p = p * r + 4.16666667e-2f;
  p = p * r + 1.66666667e-1f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  return p * std::bit_cast<float>(static_cast<uint32_t>(static_cast<int>(k) + 127) << 23);
}

}  // namespace

void binomial_options(const launch::Launch& launch, Buffers& buffers) {
  const uint64_t options = launch.grid.x;
  const float rate = param_f32(launch, 4), volatility = param_f32(launch, 5);
  const int steps = static_cast<int>(param_int(launch, 6));
  if (steps < 1 || steps > kMaxSteps) {
    reference_error(launch, "steps must be in [1, " + std::to_string(kMaxSteps) +
                                "] (the shared tree), not " + std::to_string(steps));
  }
  float* prices = checked_param_buffer<float>(launch, buffers, 0, options, "one per CTA (option)");
  const float* spot = checked_param_buffer<float>(launch, buffers, 1, options, "one per CTA (option)");
  const float* strike = checked_param_buffer<float>(launch, buffers, 2, options, "one per CTA (option)");
  const float* years = checked_param_buffer<float>(launch, buffers, 3, options, "one per CTA (option)");
  std::vector<float> from(steps + 1), to(steps + 1);
  for (uint64_t option = 0; option < options; ++option) {
    const float dt = years[option] / static_cast<float>(steps);
    const float v_dt = volatility * std::sqrt(dt);
    const float r_dt = rate * dt;
    const float growth = exp_poly(r_dt), discount = exp_poly(-r_dt);
    const float up = exp_poly(v_dt), down = exp_poly(-v_dt);
    const float p_up = (growth - down) / (up - down);
    const float up_weight = p_up * discount, down_weight = (1.0f - p_up) * discount;
    for (int j = 0; j <= steps; ++j) {
      const float payoff = spot[option] * exp_poly(v_dt * static_cast<float>(2 * j - steps)) - strike[option];
      from[j] = payoff > 0.0f ? payoff : 0.0f;
    }
    for (int level = steps; level > 0; --level) {
      for (int j = 0; j < level; ++j) to[j] = up_weight * from[j + 1] + down_weight * from[j];
      from.swap(to);
    }
    prices[option] = from[0];
  }
}

}  // namespace simtlm::workloads
