// Constants that a launch sequence passes to its kernels, for host references of sequences: the parameter
// `index` of the first launch of `kernel`, searched depth-first through loops. References read them from the
// launch file rather than repeating them, so the two cannot silently disagree.
#pragma once

#include <cstring>
#include <string>

#include "models/launch/buffers.hpp"
#include "models/launch/launch.hpp"
#include "workloads/reference/reference.hpp"

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

// Parameter `index` of the first launch of `kernel`, which the reference reads as `expected`.
inline const launch::ParamValue& sequence_param(const launch::Launch& launch, const std::string& kernel,
                                                size_t index, const std::string& expected) {
  const launch::ParamValue* p = find_sequence_param(launch.steps, kernel, index);
  if (!p) {
    reference_error(launch, "parameter " + std::to_string(index) + " of " + kernel + " must be " + expected +
                                ", but no launch of " + kernel + " passes it");
  }
  return *p;
}

[[noreturn]] inline void sequence_param_kind_error(const launch::Launch& launch, const std::string& kernel,
                                                   size_t index, const std::string& expected,
                                                   const launch::ParamValue& p) {
  reference_error(launch, "parameter " + std::to_string(index) + " of " + kernel + " must be " + expected +
                              ", but is " + describe_param(p));
}

// An integer literal parameter.
inline int64_t sequence_param_int(const launch::Launch& launch, const std::string& kernel, size_t index) {
  const std::string expected = "an integer literal";
  const launch::ParamValue& p = sequence_param(launch, kernel, index, expected);
  if (p.kind != launch::ParamValue::Kind::integer)
    sequence_param_kind_error(launch, kernel, index, expected, p);
  return p.integer;
}

// A literal .f32 parameter, rounded once from its text as the launch does.
inline float sequence_param_f32(const launch::Launch& launch, const std::string& kernel, size_t index) {
  const std::string expected = "a number";
  const launch::ParamValue& p = sequence_param(launch, kernel, index, expected);
  if (p.kind == launch::ParamValue::Kind::integer) return static_cast<float>(p.integer);
  if (p.kind != launch::ParamValue::Kind::real) sequence_param_kind_error(launch, kernel, index, expected, p);
  if (p.text.empty()) return static_cast<float>(p.real);
  uint8_t bytes[4];
  if (const std::string error = launch::encode_element(ptx::Type::f32, p.text, bytes); !error.empty())
    reference_error(launch, "parameter " + std::to_string(index) + " of " + kernel + ": " + error);
  float value;
  std::memcpy(&value, bytes, 4);
  return value;
}

}  // namespace simtlm::workloads
