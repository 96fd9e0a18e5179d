// Reference of workloads/lbm: every lbm_stream_collide launch of the sequence in order (repeats unrolled),
// each from its source to its destination buffer, with the kernel's float operations in its order (sums
// over the 19 directions from 0 to 18, no contraction, IEEE division). Box size, obstacle threshold and
// omega come from the first launch.
#include "workloads/reference/sequence_params.hpp"
#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {
namespace {

constexpr int kDirections = 19;
constexpr int kCx[kDirections] = {0, 1, -1, 0, 0, 0, 0, 1, -1, 1, -1, 1, -1, 1, -1, 0, 0, 0, 0};
constexpr int kCy[kDirections] = {0, 0, 0, 1, -1, 0, 0, 1, 1, -1, -1, 0, 0, 0, 0, 1, -1, 1, -1};
constexpr int kCz[kDirections] = {0, 0, 0, 0, 0, 1, -1, 0, 0, 0, 0, 1, 1, -1, -1, 1, 1, -1, -1};
constexpr int kOpposite[kDirections] = {0, 2, 1, 4, 3, 6, 5, 10, 9, 8, 7, 14, 13, 12, 11, 18, 17, 16, 15};
const std::string kKernel = "lbm_stream_collide";

struct Box {
  int nx, ny, nz, obstacle_percent;
  float omega;
  uint64_t cells() const { return elements(nx, ny, nz); }
};

int wrap(int v, int n) {
  return v < 0 ? v + n : (v >= n ? v - n : v);
}

void stream_collide(const Box& box, const float* source, float* destination, const uint8_t* cell_noise) {
  const int cells = static_cast<int>(box.cells());
  for (int cell = 0; cell < cells; ++cell) {
    const int x = cell % box.nx, y = (cell / box.nx) % box.ny, z = cell / (box.nx * box.ny);
    auto neighbour = [&](int dx, int dy, int dz) {
      return (wrap(z + dz, box.nz) * box.ny + wrap(y + dy, box.ny)) * box.nx + wrap(x + dx, box.nx);
    };
    float f[kDirections];
    for (int i = 0; i < kDirections; ++i) f[i] = source[i * cells + cell];
    if (cell_noise[cell] < box.obstacle_percent) {
      for (int i = 0; i < kDirections; ++i)
        destination[kOpposite[i] * cells + neighbour(-kCx[i], -kCy[i], -kCz[i])] = f[i];
      continue;
    }
    float rho = 0.0f, mx = 0.0f, my = 0.0f, mz = 0.0f;
    for (int i = 0; i < kDirections; ++i) {
      rho += f[i];
      mx += static_cast<float>(kCx[i]) * f[i];
      my += static_cast<float>(kCy[i]) * f[i];
      mz += static_cast<float>(kCz[i]) * f[i];
    }
    const float ux = mx / rho, uy = my / rho, uz = mz / rho;
    const float u_squared = ux * ux + uy * uy + uz * uz;
    for (int i = 0; i < kDirections; ++i) {
      const float weight = i == 0 ? 1.0f / 3.0f : (i < 7 ? 1.0f / 18.0f : 1.0f / 36.0f);
      const float eu =
          static_cast<float>(kCx[i]) * ux + static_cast<float>(kCy[i]) * uy + static_cast<float>(kCz[i]) * uz;
      const float equilibrium = weight * rho * (1.0f + 3.0f * eu + 4.5f * eu * eu - 1.5f * u_squared);
      destination[i * cells + neighbour(kCx[i], kCy[i], kCz[i])] = f[i] + box.omega * (equilibrium - f[i]);
    }
  }
}

const std::string& step_buffer(const launch::Launch& launch, const launch::Step& step, size_t index) {
  if (index >= step.params.size() || step.params[index].kind != launch::ParamValue::Kind::buffer ||
      !step.params[index].offset.empty()) {
    reference_error(launch, "parameter " + std::to_string(index) + " of the " + kKernel + " launch at line " +
                                std::to_string(step.line) + " must be a buffer without an offset");
  }
  return step.params[index].buffer;
}

void run_steps(const launch::Launch& launch, const Box& box, const std::vector<launch::Step>& steps,
               Buffers& buffers) {
  for (const launch::Step& step : steps) {
    if (step.kind == launch::Step::Kind::repeat) {
      for (uint64_t i = 0; i < step.count; ++i) run_steps(launch, box, step.steps, buffers);
      continue;
    }
    if (step.kind != launch::Step::Kind::kernel || step.kernel != kKernel) {
      reference_error(launch, "the step at line " + std::to_string(step.line) + " is not a " + kKernel +
                                  " launch or a repeat of them");
    }
    const uint64_t slots = kDirections * box.cells();
    const float* source = checked_view<float>(launch, buffers, step_buffer(launch, step, 0), slots,
                                              "19 per cell of nx x ny x nz");
    float* destination = checked_view<float>(launch, buffers, step_buffer(launch, step, 1), slots,
                                             "19 per cell of nx x ny x nz");
    const uint8_t* cell_noise = checked_view<uint8_t>(launch, buffers, step_buffer(launch, step, 2),
                                                      box.cells(), "one per cell of nx x ny x nz");
    if (source == destination) reference_error(launch, "source and destination must be different buffers");
    stream_collide(box, source, destination, cell_noise);
  }
}

}  // namespace

void lbm(const launch::Launch& launch, Buffers& buffers) {
  const Box box{static_cast<int>(sequence_param_int(launch, kKernel, 5)),
                static_cast<int>(sequence_param_int(launch, kKernel, 6)),
                static_cast<int>(sequence_param_int(launch, kKernel, 7)),
                static_cast<int>(sequence_param_int(launch, kKernel, 3)),
                sequence_param_f32(launch, kKernel, 4)};
  if (box.nx < 1 || box.ny < 1 || box.nz < 1 || box.cells() > (uint64_t{1} << 26))
    reference_error(launch, "the box must have between 1 and 2^26 cells");
  run_steps(launch, box, launch.steps, buffers);
}

}  // namespace simtlm::workloads
