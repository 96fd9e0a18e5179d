// The host references of the workload suite and helpers to read kernel parameters the way the
// kernel sees them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "workloads/reference/reference.hpp"

namespace simtlm::workloads {

// An integer parameter (a real one is truncated, as a YAML "3.0" for an int param would be).
inline int64_t param_int(const launch::Launch& launch, size_t index) {
  const launch::ParamValue& p = launch.params.at(index);
  if (p.kind == launch::ParamValue::Kind::buffer) {
    throw std::invalid_argument("param is a buffer: " + p.buffer);
  }
  return p.kind == launch::ParamValue::Kind::real ? static_cast<int64_t>(p.real) : p.integer;
}

// A .f32 parameter: the double from the launch file rounded to float, as the runner stores it.
inline float param_f32(const launch::Launch& launch, size_t index) {
  const launch::ParamValue& p = launch.params.at(index);
  if (p.kind == launch::ParamValue::Kind::buffer) {
    throw std::invalid_argument("param is a buffer: " + p.buffer);
  }
  return p.kind == launch::ParamValue::Kind::real ? static_cast<float>(p.real)
                                                  : static_cast<float>(p.integer);
}

// The buffer passed as parameter `index`, typed.
template <class T>
T* param_buffer(const launch::Launch& launch, Buffers& buffers, size_t index) {
  const launch::ParamValue& p = launch.params.at(index);
  if (p.kind != launch::ParamValue::Kind::buffer) throw std::invalid_argument("param is not a buffer");
  return view<T>(buffers, p.buffer);
}

void backprop(const launch::Launch& launch, Buffers& buffers);
void bfs(const launch::Launch& launch, Buffers& buffers);
void bfs_graph(const launch::Launch& launch, Buffers& buffers);
void bitonic(const launch::Launch& launch, Buffers& buffers);
void convolution(const launch::Launch& launch, Buffers& buffers);
void double_loop(const launch::Launch& launch, Buffers& buffers);
void gaussian(const launch::Launch& launch, Buffers& buffers);
void histogram(const launch::Launch& launch, Buffers& buffers);
void julia(const launch::Launch& launch, Buffers& buffers);
void mandelbrot(const launch::Launch& launch, Buffers& buffers);
void mandelbrot_herding(const launch::Launch& launch, Buffers& buffers);
void nbody(const launch::Launch& launch, Buffers& buffers);
void needleman_wunsch(const launch::Launch& launch, Buffers& buffers);
void recursive_gaussian(const launch::Launch& launch, Buffers& buffers);
void reduction(const launch::Launch& launch, Buffers& buffers);
void single_loop(const launch::Launch& launch, Buffers& buffers);
void sobel(const launch::Launch& launch, Buffers& buffers);

}  // namespace simtlm::workloads
