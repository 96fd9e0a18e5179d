// Constants that a launch sequence passes to its kernels, for host references of sequences: the parameter
// `index` of the first launch of `kernel`, searched depth-first through loops. References read them from the
// launch file rather than repeating them, so the two cannot silently disagree.
#pragma once

#include <cstring>
#include <stdexcept>
#include <string>

#include "models/launch/buffers.hpp"
#include "models/launch/launch.hpp"

namespace simtlm::workloads {

inline const launch::ParamValue* find_sequence_param(const std::vector<launch::Step>& steps,
                                                     const std::string& kernel, size_t index) {
  for (const launch::Step& step : steps) {
    if (step.kind == launch::Step::Kind::kernel && step.kernel == kernel && index < step.params.size())
      return &step.params[index];
    if (const launch::ParamValue* inner = find_sequence_param(step.steps, kernel, index)) return inner;
  }
  return nullptr;
}

inline const launch::ParamValue& sequence_param(const launch::Launch& launch, const std::string& kernel,
                                                size_t index) {
  const launch::ParamValue* p = find_sequence_param(launch.steps, kernel, index);
  if (!p) throw std::invalid_argument("no launch of " + kernel + " with parameter " + std::to_string(index));
  return *p;
}

// An integer literal parameter.
inline int64_t sequence_param_int(const launch::Launch& launch, const std::string& kernel, size_t index) {
  const launch::ParamValue& p = sequence_param(launch, kernel, index);
  if (p.kind != launch::ParamValue::Kind::integer)
    throw std::invalid_argument(kernel + " parameter " + std::to_string(index) +
                                " is not an integer literal");
  return p.integer;
}

// A literal .f32 parameter, rounded once from its text as the launch does.
inline float sequence_param_f32(const launch::Launch& launch, const std::string& kernel, size_t index) {
  const launch::ParamValue& p = sequence_param(launch, kernel, index);
  if (p.kind == launch::ParamValue::Kind::integer) return static_cast<float>(p.integer);
  if (p.kind != launch::ParamValue::Kind::real)
    throw std::invalid_argument(kernel + " parameter " + std::to_string(index) + " is not a number");
  if (p.text.empty()) return static_cast<float>(p.real);
  uint8_t bytes[4];
  if (const std::string error = launch::encode_element(ptx::Type::f32, p.text, bytes); !error.empty())
    throw std::invalid_argument(kernel + " parameter " + std::to_string(index) + ": " + error);
  float value;
  std::memcpy(&value, bytes, 4);
  return value;
}

}  // namespace simtlm::workloads
