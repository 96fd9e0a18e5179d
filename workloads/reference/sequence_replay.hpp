// Replays a launch sequence's kernel launches in order (repeats unrolled, each with its i) for host
// references that mirror each launch with the parameters and thread count it really receives (expressions in
// i and constants evaluated as the runner does), so editing a repeat count, a grid or a parameter of the
// launch file keeps the reference in step with the device.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "models/launch/buffers.hpp"
#include "models/launch/launch.hpp"
#include "workloads/reference/reference.hpp"
#include "workloads/reference/sequence_params.hpp"

namespace simtlm::workloads {

// One kernel launch of a sequence: its step and the innermost repeat index i (0 outside repeats).
struct ReplayedLaunch {
  const launch::Launch& launch;
  const launch::Step& step;
  int64_t i;

  std::string where() const { return step.kernel + " launch at line " + std::to_string(step.line); }

  const launch::ParamValue& param(size_t index) const {
    if (index >= step.params.size())
      reference_error(launch, "the " + where() + " has no parameter " + std::to_string(index));
    return step.params[index];
  }

  // An integer parameter: a literal or an expression in i and the file's constants.
  int64_t integer(size_t index) const {
    const launch::ParamValue& p = param(index);
    if (p.kind == launch::ParamValue::Kind::integer) return p.integer;
    if (p.kind == launch::ParamValue::Kind::expression)
      return launch::evaluate_expression(p.text, i, launch.constants, launch.path.string() + ": " + where());
    reference_error(launch, "parameter " + std::to_string(index) + " of the " + where() +
                                " must be an integer, but is " + describe_param(p));
  }

  // Threads the launch starts (grid times block, each dimension evaluated with i): references that mirror a
  // kernel's bounds check cover exactly the tasks that exist, not the problem size alone.
  uint64_t threads() const {
    const std::string context = launch.path.string() + ": " + where();
    uint64_t count = 1;
    for (const auto* dims : {&step.grid, &step.block}) {
      for (const std::string& dim : *dims)
        count *= static_cast<uint64_t>(launch::evaluate_expression(dim, i, launch.constants, context));
    }
    return count;
  }

  // A .f32 parameter, rounded once from its text as the runner does.
  float f32(size_t index) const {
    const launch::ParamValue& p = param(index);
    if (p.kind == launch::ParamValue::Kind::integer) return static_cast<float>(p.integer);
    if (p.kind != launch::ParamValue::Kind::real) {
      reference_error(launch, "parameter " + std::to_string(index) + " of the " + where() +
                                  " must be a number, but is " + describe_param(p));
    }
    if (p.text.empty()) return static_cast<float>(p.real);
    uint8_t bytes[4];
    if (const std::string error = launch::encode_element(ptx::Type::f32, p.text, bytes); !error.empty())
      reference_error(launch, "parameter " + std::to_string(index) + " of the " + where() + ": " + error);
    float value;
    std::memcpy(&value, bytes, 4);
    return value;
  }

  // A buffer passed whole (a reference indexes from the buffer's start).
  const std::string& buffer(size_t index) const {
    const launch::ParamValue& p = param(index);
    if (p.kind != launch::ParamValue::Kind::buffer || !p.offset.empty()) {
      reference_error(launch, "parameter " + std::to_string(index) + " of the " + where() +
                                  " must be a buffer without an offset, but is " + describe_param(p));
    }
    return p.buffer;
  }
};

namespace detail {
template <class Visit>
void replay_steps(const launch::Launch& launch, const std::vector<launch::Step>& steps, int64_t i,
                  const Visit& visit) {
  for (const launch::Step& step : steps) {
    switch (step.kind) {
      case launch::Step::Kind::kernel:
        visit(ReplayedLaunch{launch, step, i});
        break;
      case launch::Step::Kind::repeat:
        for (uint64_t k = 0; k < step.count; ++k)
          replay_steps(launch, step.steps, static_cast<int64_t>(k), visit);
        break;
      default:
        // Loops and host writes depend on device state the reference does not model.
        reference_error(launch, "the step at line " + std::to_string(step.line) +
                                    " is neither a kernel launch nor a repeat of them");
    }
  }
}
}  // namespace detail

// Calls visit(ReplayedLaunch) for every kernel launch of the sequence, repeats unrolled, in launch order.
template <class Visit>
void replay_sequence(const launch::Launch& launch, const Visit& visit) {
  detail::replay_steps(launch, launch.steps, 0, visit);
}

}  // namespace simtlm::workloads
