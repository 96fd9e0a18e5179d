// Why an SM with resident warps issued nothing in a cycle: the reasons the SM and its divergence unit report.
#pragma once

#include <cstddef>
#include <cstdint>

namespace simtlm::hw {

enum class Stall : uint8_t {
  no_warp,
  memory,
  scoreboard,
  pipeline,
  memory_backpressure,  // the next instruction is a memory one and the load/store unit is full
  branch,
  stack,
  compaction,
  barrier,
  count_
};
inline constexpr size_t kStallKinds = static_cast<size_t>(Stall::count_);
// The name in stats.json (sm.stalls) and in deadlock reports.
constexpr const char* stall_name(Stall s) {
  constexpr const char* kNames[] = {"no_warp", "memory", "scoreboard", "pipeline", "memory_backpressure",
                                    "branch",  "stack",  "compaction", "barrier"};
  return kNames[static_cast<size_t>(s)];
}

}  // namespace simtlm::hw
