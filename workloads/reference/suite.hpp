// The host references of the workload suite and helpers to read kernel parameters the way the
// kernel sees them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "workloads/reference/reference.hpp"

namespace simtlm::workloads {

// An integer parameter (a real one is truncated, as a YAML "3.0" for an int param would be).
inline int64_t param_int(const launch::Launch& launch, size_t index) {
  const launch::ParamValue& p = reference_param(launch, index, "an integer");
  if (p.kind == launch::ParamValue::Kind::real) return static_cast<int64_t>(p.real);
  if (p.kind != launch::ParamValue::Kind::integer) {
    reference_error(
        launch, "parameter " + std::to_string(index) + " must be an integer, but is " + describe_param(p));
  }
  return p.integer;
}

// A .f32 parameter: the double from the launch file rounded to float, as the runner stores it.
inline float param_f32(const launch::Launch& launch, size_t index) {
  const launch::ParamValue& p = reference_param(launch, index, "a number");
  if (p.kind == launch::ParamValue::Kind::real) return static_cast<float>(p.real);
  if (p.kind != launch::ParamValue::Kind::integer) {
    reference_error(launch,
                    "parameter " + std::to_string(index) + " must be a number, but is " + describe_param(p));
  }
  return static_cast<float>(p.integer);
}

// The name of the buffer passed whole as parameter `index`: a reference reads a buffer from its start, so an
// offset would make it compare the wrong elements.
inline const std::string& param_buffer_name(const launch::Launch& launch, size_t index) {
  const launch::ParamValue& p = reference_param(launch, index, "a buffer");
  if (p.kind != launch::ParamValue::Kind::buffer || !p.offset.empty()) {
    reference_error(launch, "parameter " + std::to_string(index) + " must be a buffer" +
                                (p.kind == launch::ParamValue::Kind::buffer ? " without an offset" : "") +
                                ", but is " + describe_param(p));
  }
  return p.buffer;
}

// The buffer passed as parameter `index`, typed, holding at least `needed` elements (`why` says which).
template <class T>
T* checked_param_buffer(const launch::Launch& launch, Buffers& buffers, size_t index, uint64_t needed,
                        const std::string& why) {
  return checked_view<T>(launch, buffers, param_buffer_name(launch, index), needed, why);
}

void backprop(const launch::Launch& launch, Buffers& buffers);
void bfs(const launch::Launch& launch, Buffers& buffers);
void bfs_graph(const launch::Launch& launch, Buffers& buffers);
void binomial_options(const launch::Launch& launch, Buffers& buffers);
void bitonic(const launch::Launch& launch, Buffers& buffers);
void convolution(const launch::Launch& launch, Buffers& buffers);
void double_loop(const launch::Launch& launch, Buffers& buffers);
void dxtc(const launch::Launch& launch, Buffers& buffers);
void edge_filter(const launch::Launch& launch, Buffers& buffers);
void eigen_bisect(const launch::Launch& launch, Buffers& buffers);
void fft(const launch::Launch& launch, Buffers& buffers);
void gaussian(const launch::Launch& launch, Buffers& buffers);
void histogram(const launch::Launch& launch, Buffers& buffers);
void histogram64(const launch::Launch& launch, Buffers& buffers);
void histogram256(const launch::Launch& launch, Buffers& buffers);
void hotspot(const launch::Launch& launch, Buffers& buffers);
void julia(const launch::Launch& launch, Buffers& buffers);
void kmeans(const launch::Launch& launch, Buffers& buffers);
void lbm(const launch::Launch& launch, Buffers& buffers);
void lu(const launch::Launch& launch, Buffers& buffers);
void mandelbrot(const launch::Launch& launch, Buffers& buffers);
void mandelbrot_herding(const launch::Launch& launch, Buffers& buffers);
void mandelbrot_sdk(const launch::Launch& launch, Buffers& buffers);
void merge_sort(const launch::Launch& launch, Buffers& buffers);
void mummer(const launch::Launch& launch, Buffers& buffers);
void nbody(const launch::Launch& launch, Buffers& buffers);
void ocean_fft(const launch::Launch& launch, Buffers& buffers);
void needleman_wunsch(const launch::Launch& launch, Buffers& buffers);
void particles(const launch::Launch& launch, Buffers& buffers);
void ray_trace(const launch::Launch& launch, Buffers& buffers);
void recursive_gaussian(const launch::Launch& launch, Buffers& buffers);
void reduction(const launch::Launch& launch, Buffers& buffers);
void sad(const launch::Launch& launch, Buffers& buffers);
void short_path(const launch::Launch& launch, Buffers& buffers);
void single_loop(const launch::Launch& launch, Buffers& buffers);
void sobel(const launch::Launch& launch, Buffers& buffers);
void sobel_tex(const launch::Launch& launch, Buffers& buffers);
void svm_kernel(const launch::Launch& launch, Buffers& buffers);
void volume_render(const launch::Launch& launch, Buffers& buffers);
void volume_render_tex(const launch::Launch& launch, Buffers& buffers);

}  // namespace simtlm::workloads
