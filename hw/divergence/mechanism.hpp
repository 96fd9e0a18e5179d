// The divergence mechanisms of an SM, with the one spelling the configuration (compaction.mechanism), the
// statistics (compaction.mechanism) and the command line use for each.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace simtlm::hw {

enum class Compaction : uint8_t {
  none,   // per-warp reconvergence stacks
  tbc,    // thread block compaction: a CTA-wide stack, warps formed by the priority-encoder compactor
  ideal,  // the same, but any thread may run in any lane (the upper bound)
  capri,  // tbc, but a branch predicted not to gain from compaction runs without synchronizing the CTA
};

inline constexpr std::array<std::string_view, 4> kCompactionNames = {"none", "tbc", "ideal", "capri"};

constexpr std::string_view compaction_name(Compaction c) {
  return kCompactionNames[static_cast<size_t>(c)];
}

constexpr std::optional<Compaction> parse_compaction(std::string_view name) {
  for (size_t i = 0; i < kCompactionNames.size(); ++i) {
    if (kCompactionNames[i] == name) return static_cast<Compaction>(i);
  }
  return std::nullopt;
}

// Whether the mechanism forms warps from the CTA's threads (the compactor and the lane permutation matter).
constexpr bool forms_warps(Compaction c) {
  return c != Compaction::none;
}

}  // namespace simtlm::hw
