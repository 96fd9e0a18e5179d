// Which rule the herding safety analysis applies (herd_safety.hpp): plain data shared with the launch
// file's `herding:` section.
#pragma once

#include <cstdint>

namespace simtlm::ptx {

// strict: a site is unsafe when any vulnerable operation depends on it. relaxed: the paper's relaxation
// (herd_relaxed.hpp): a dependence that herding can only turn into a skipped or an added operation, on an
// operand nothing checks, does not count.
enum class HerdSafetyRule : uint8_t { strict, relaxed };

inline const char* herd_safety_rule_name(HerdSafetyRule rule) {
  return rule == HerdSafetyRule::relaxed ? "relaxed" : "strict";
}

}  // namespace simtlm::ptx
