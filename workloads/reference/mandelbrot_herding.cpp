// Reference of workloads/mandelbrot_herding: replays the kernel warp by warp. The 32 lanes of a
// warp are consecutive linear thread ids of a CTA; each iteration every lane votes "bounded"
// (lanes outside the image vote no) and the warp continues only on a strict majority (> 16).
#include <array>
#include <bit>

#include "workloads/reference/escape_time.hpp"
#include "workloads/reference/suite.hpp"

namespace simtlm::workloads {
namespace {

constexpr uint32_t kWarp = 32;
constexpr int kHalfWarp = 16;

struct Lane {
  int x = 0, y = 0;
  bool in_image = false;
  Complex c{}, z{};
};

}  // namespace

void mandelbrot_herding(const launch::Launch& launch, Buffers& buffers) {
  const int width = static_cast<int>(param_int(launch, 1));
  const int height = static_cast<int>(param_int(launch, 2));
  uint8_t* iterations =
      checked_param_buffer<uint8_t>(launch, buffers, 0, elements(width, height), "width x height");
  const int max_iterations = static_cast<int>(param_int(launch, 3));
  const float x_origin = param_f32(launch, 4), y_origin = param_f32(launch, 5), step = param_f32(launch, 6);
  const uint32_t threads_per_cta = launch.block.x * launch.block.y;
  for (uint32_t cta_y = 0; cta_y < launch.grid.y; ++cta_y) {
    for (uint32_t cta_x = 0; cta_x < launch.grid.x; ++cta_x) {
      for (uint32_t warp_base = 0; warp_base < threads_per_cta; warp_base += kWarp) {
        std::array<Lane, kWarp> lanes;
        for (uint32_t lane = 0; lane < kWarp; ++lane) {
          const uint32_t linear = warp_base + lane;
          Lane& l = lanes[lane];
          l.x = static_cast<int>(cta_x * launch.block.x + linear % launch.block.x);
          l.y = static_cast<int>(cta_y * launch.block.y + linear / launch.block.x);
          l.in_image = l.x < width && l.y < height;
          l.c = {to_plane(x_origin, l.x, step), to_plane(y_origin, l.y, step)};
        }
        int count = 0;
        while (count < max_iterations) {
          uint32_t ballot = 0;
          for (uint32_t lane = 0; lane < kWarp; ++lane) {
            if (lanes[lane].in_image && bounded(lanes[lane].z)) ballot |= 1u << lane;
          }
          if (std::popcount(ballot) <= kHalfWarp) break;
          for (Lane& l : lanes) l.z = square_plus(l.z, l.c);
          ++count;
        }
        for (const Lane& l : lanes) {
          if (l.in_image) iterations[l.y * width + l.x] = static_cast<uint8_t>(count);
        }
      }
    }
  }
}

}  // namespace simtlm::workloads
