// Reference of workloads/backprop: per CTA (blockIdx.y) and hidden unit, the 8 products
// weight * input reduced with the kernel's tree (row ty += row ty + power_two/2).
#include <array>

#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {

void backprop(const launch::Launch& launch, Buffers& buffers) {
  constexpr int kHidden = 16, kInputsPerCta = 8;
  const uint64_t ctas = launch.grid.y;
  const float* inputs =
      checked_param_buffer<float>(launch, buffers, 0, ctas * kInputsPerCta, "8 inputs per CTA of grid.y");
  const float* weights = checked_param_buffer<float>(launch, buffers, 1, ctas * kInputsPerCta * kHidden,
                                                     "8 x 16 weights per CTA of grid.y");
  float* partial_sums =
      checked_param_buffer<float>(launch, buffers, 2, ctas * kHidden, "16 sums per CTA of grid.y");
  for (uint32_t cta = 0; cta < launch.grid.y; ++cta) {
    for (int hidden = 0; hidden < kHidden; ++hidden) {
      std::array<float, kInputsPerCta> products;
      for (int row = 0; row < kInputsPerCta; ++row) {
        const int input_index = static_cast<int>(cta) * kInputsPerCta + row;
        products[row] = weights[input_index * kHidden + hidden] * inputs[input_index];
      }
      for (int power_two = 2; power_two <= kInputsPerCta; power_two *= 2) {
        for (int row = 0; row < kInputsPerCta; row += power_two) {
          products[row] += products[row + power_two / 2];
        }
      }
      partial_sums[cta * kHidden + hidden] = products[0];
    }
  }
}

}  // namespace simtlm::workloads
