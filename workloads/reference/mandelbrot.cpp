// Reference of workloads/mandelbrot: escape counts (as u8) of c = pixel, z0 = 0.
#include "workloads/reference/escape_time.hpp"
#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {

void mandelbrot(const launch::Launch& launch, Buffers& buffers) {
  const int width = static_cast<int>(param_int(launch, 1));
  const int height = static_cast<int>(param_int(launch, 2));
  uint8_t* iterations =
      checked_param_buffer<uint8_t>(launch, buffers, 0, elements(width, height), "width x height");
  const int max_iterations = static_cast<int>(param_int(launch, 3));
  const float x_origin = param_f32(launch, 4), y_origin = param_f32(launch, 5), step = param_f32(launch, 6);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const Complex c{to_plane(x_origin, x, step), to_plane(y_origin, y, step)};
      iterations[y * width + x] = static_cast<uint8_t>(escape_count({0.0f, 0.0f}, c, max_iterations));
    }
  }
}

}  // namespace simtlm::workloads
