// Storage of one warp's reconvergence stack: a small on-chip part and a spill region in global memory.
// When a push finds the on-chip part full, the oldest chunk goes to memory; when a pop finds it empty, the
// newest spilled chunk comes back (the paper's sec. IV model: 16 entries on chip, chunks of 4). The engine
// lists the memory requests it would issue so the timing model can turn them into TLM transactions; this
// standalone version also keeps the spilled entries themselves so a fill restores the exact state.
#pragma once

#include <cstdint>
#include <vector>

#include "hw/stack_params.hpp"
#include "models/ptx/functional.hpp"

namespace simtlm::hw {

using ptx::LaneMask;

enum class EntryKind : uint8_t {
  path,  // postdom discipline: a path to run (pc) that waits at reconvergence_pc
  sync,  // token discipline: pushed at an SSY point, restores the region's mask at the join
  div,   // token discipline: the not-taken lanes of a divergent branch
};

struct StackEntry {
  EntryKind kind = EntryKind::path;
  uint32_t pc = 0;
  uint32_t reconvergence_pc = 0;
  LaneMask mask = 0;
  bool operator==(const StackEntry&) const = default;
};

struct MemRequest {
  uint64_t address = 0;
  uint32_t bytes = 0;
  bool write = false;
  bool operator==(const MemRequest&) const = default;
};

class SpillEngine {
 public:
  // Throws std::invalid_argument when the chunk is empty or larger than the on-chip part.
  SpillEngine(const StackParams& params, uint32_t warp);

  void clear();
  // Pushes e; returns the number of chunks spilled to make room (0 or 1).
  uint32_t push(const StackEntry& e);
  // Brings back the newest spilled chunk when the on-chip part is empty; returns chunks filled (0 or 1).
  uint32_t fill_if_empty();
  // Pops the top entry into *out, filling first when needed; returns chunks filled.
  uint32_t pop(StackEntry* out);
  // The top entry; fill_if_empty() must have made it on-chip.
  const StackEntry& top() const { return onchip_.back(); }

  size_t size() const { return onchip_.size() + memory_.size(); }
  size_t onchip_size() const { return onchip_.size(); }
  size_t spilled_size() const { return memory_.size(); }
  bool empty() const { return size() == 0; }
  uint64_t region_base() const { return region_base_; }
  // Requests issued since the last take_requests(), in order.
  std::vector<MemRequest> take_requests();
  const std::vector<MemRequest>& pending_requests() const { return requests_; }
  // Every entry, spilled ones first (bottom of the stack first), one word each (the livelock watch).
  void append_state(std::vector<uint64_t>& out) const;

 private:
  uint64_t slot_address(size_t index) const { return region_base_ + uint64_t(index) * entry_bytes_; }

  uint32_t capacity_, chunk_, entry_bytes_;
  uint64_t region_base_, region_bytes_;
  std::vector<StackEntry> onchip_;  // bottom first
  std::vector<StackEntry> memory_;  // spilled entries, bottom of the stack first (= slot order)
  std::vector<MemRequest> requests_;
};

}  // namespace simtlm::hw
