#include "models/launch/loop_check.hpp"

#include <fmt/format.h>

namespace simtlm::launch {
namespace {

bool param_names_buffer(const ParamValue& p, const std::string& buffer) {
  if (p.kind == ParamValue::Kind::buffer && p.buffer == buffer) return true;
  for (const ParamValue& field : p.fields)
    if (param_names_buffer(field, buffer)) return true;
  return false;
}

// A kernel anywhere in the sequence: only a kernel given the address can learn it (and pass it on through
// device memory), so one that never receives it can never write the buffer.
bool some_kernel_receives(const std::vector<Step>& steps, const std::string& buffer) {
  for (const Step& step : steps) {
    if (step.kind == Step::Kind::kernel) {
      for (const ParamValue& p : step.params)
        if (param_names_buffer(p, buffer)) return true;
    }
    if (some_kernel_receives(step.steps, buffer)) return true;
  }
  return false;
}

bool set_inside(const std::vector<Step>& steps, const std::string& buffer) {
  for (const Step& step : steps) {
    for (const SetSpec& set : step.sets)
      if (set.name == buffer) return true;
    if (step.kind == Step::Kind::copy2d && step.copy.dst.buffer == buffer) return true;
    if (set_inside(step.steps, buffer)) return true;
  }
  return false;
}

}  // namespace

std::optional<std::string> until_never_changes(const Launch& launch, const Step& loop) {
  const UntilSpec& u = loop.until;
  if (u.symbol || some_kernel_receives(launch.steps, u.name) || set_inside(loop.steps, u.name))
    return std::nullopt;
  return fmt::format(
      "no kernel of the sequence receives buffer {} as a parameter and no set: in the loop writes it",
      u.name);
}

}  // namespace simtlm::launch
