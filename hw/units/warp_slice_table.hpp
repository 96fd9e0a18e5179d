// Warp-slice table (WST) of Robust SIMD (robust-simd paper, Sections IV-A and IV-B, Figure 4) with the
// per-slice post-dominator reconvergence stacks, stored the way Figure 4(e) combines them.
//
// A WPU has `warps` physical warps of `lanes` lanes. A warp is divided into warp-slices of neighbouring
// lanes; each slice is one entry of the table. Lane masks use bit i for lane i of the warp: the paper's mask
// strings read lane 0 first, so its "11110000" (slice 1 of an 8-lane warp) is 0x0f here and "00001111" is
// 0xf0.
//
// Entry numbers are stable: entry = warp * lanes + first lane of the slice, so a warp never shares entries
// with another and the integrator can use them as issue-slot numbers. Unused entries are `off`.
//
// Physically there is one stack per warp. Each row has one (PC, reconvergence PC) column per slice (column =
// slice id - 1) and one active-mask word in which every slice owns the bits of its lanes; every slice has
// its own TOS (the number of rows it uses). The slices of a warp therefore push and pop independently.
// Each slice follows the post-dominator discipline of hw/simt_stack.cpp with its executing path kept in its
// top row: a divergent branch applies ptx::divergent_paths (the top row turns into the row waiting at the
// reconvergence PC, or is replaced by the paths when it already waits there), the top row pops when it
// reaches its reconvergence PC, and exited lanes leave every row of their slice, empty rows popping.
#pragma once

#include <cstdint>
#include <vector>

#include "models/ptx/functional.hpp"

namespace simtlm::hw {

// ready: runs; dormant: suspended to reduce depth, takes no tasks; finished: its threads finished their tasks
// and its stack is empty (waits for the merge or for new tasks); off: no entry.
enum class SliceStatus : uint8_t { ready, dormant, finished, off };

struct SliceEntry {
  ptx::LaneMask mask = 0;  // the slice's lanes (its share of the warp), not the executing subset
  uint32_t pc = 0;         // executing PC (top of its stack); the last one once the stack is empty
  uint32_t warp = 0;
  uint32_t slice = 0;  // 1-based within the warp, as in Figure 4
  uint32_t tos = 0;    // rows of its stack in use (0 = empty: no task)
  SliceStatus status = SliceStatus::off;
  bool operator==(const SliceEntry&) const = default;
};

// One slice's view of a physical row: its column and its bits of the row's mask. The bottom row's
// reconvergence PC is ptx::kNoTarget (the paper's "-"); pc is where the row's lanes run or resume.
struct StackRow {
  uint32_t pc = 0;
  uint32_t reconvergence_pc = 0;
  ptx::LaneMask mask = 0;
  bool operator==(const StackRow&) const = default;
};

class WarpSliceTable {
 public:
  // Throws std::invalid_argument unless warps >= 1, 1 <= lanes <= 32 and stack_rows >= 1. Starts reset().
  WarpSliceTable(uint32_t warps, uint32_t lanes, uint32_t stack_rows);

  uint32_t warps() const { return warps_; }
  uint32_t lanes() const { return lanes_; }
  uint32_t stack_rows() const { return stack_rows_; }
  uint32_t capacity() const { return warps_ * lanes_; }  // entries (one per lane at width 1)

  // Every warp becomes one slice of all its lanes, status finished, empty stack, PC 0 (a merged warp).
  void reset();
  // The warp's slices merge into one entry (OR of masks, slice id 1, the PC of its first slice, status
  // finished). Throws std::logic_error unless every slice of the warp is finished or dormant with an empty
  // stack. Returns the merged entry index (warp * lanes).
  uint32_t merge(uint32_t warp);
  // Divides a merged warp into slices of `width` neighbouring lanes (the last narrower when lanes % width !=
  // 0), in lane order, and returns their entry indices. Each slice gets a copy of the merged warp's stack
  // restricted to its lanes (rows where it has no lane are left out), so a warp split at A with TOS 1 gives
  // slices at A with TOS 1 (Figure 4(c)); a slice with an empty copy is finished, the others keep the merged
  // status. Throws std::logic_error if the warp is not a single slice, std::invalid_argument unless
  // 1 <= width <= lanes.
  std::vector<uint32_t> split(uint32_t warp, uint32_t width);

  const SliceEntry& entry(uint32_t e) const;  // throws std::out_of_range past capacity()
  // Throws std::logic_error on an off entry or when s is off (entries turn off only by merge and split).
  void set_status(uint32_t e, SliceStatus s);

  // Per-slice stack (post-dominator discipline). Every call below throws std::out_of_range or
  // std::logic_error on an off entry; branch/advance/exit need a task (non-empty stack).
  // A new task on `lanes` (a non-empty subset of the slice) at pc: one row, status ready. Throws
  // std::logic_error if the slice is dormant or still has a task.
  void start(uint32_t e, ptx::LaneMask lanes, uint32_t pc);
  ptx::LaneMask executing(uint32_t e) const;  // lanes of the top row (the issue mask); 0 when empty
  // The executing lanes ran a branch; taken lanes outside the executing ones are ignored.
  // reconvergence_pc = ptx::kNoTarget when the paths meet only by exiting.
  void branch(uint32_t e, ptx::LaneMask taken, uint32_t target, uint32_t fallthrough,
              uint32_t reconvergence_pc);
  void advance(uint32_t e, uint32_t next_pc);  // non-branch: pops at the reconvergence PC
  // `lanes` of the executing ones finished their task and leave every row; the others go on at next_pc.
  // The slice becomes finished when its stack empties.
  void exit(uint32_t e, ptx::LaneMask lanes, uint32_t next_pc);
  bool stack_empty(uint32_t e) const;
  std::vector<StackRow> stack(uint32_t e) const;  // rows bottom..TOS (tests, waveform)
  uint32_t max_tos(uint32_t warp) const;          // physical rows in use
  // The mask word of a physical row, every slice's bits together (Figure 4(e)); bits of a slice above its
  // TOS are stale.
  ptx::LaneMask physical_mask(uint32_t warp, uint32_t row) const;

  // Storage in the way of Section IV-B. max_slices is the number of WST entries the WPU supports, which is
  // also the most slices one warp can be divided into (the paper's 8). Entry: lanes mask bits +
  // ceil(log2(warps)) warp id bits + pc_bits + ceil(log2(max_slices)) slice id bits + 2 status bits + 8 TOS
  // bits, rounded up to bytes; table = entries * entry bytes; stacks = warps * stack_rows * max_slices PC
  // columns of pc_bits (the paper counts one added PC column per slice, the mask word being the
  // conventional stack's). The paper's example (2 warps x 32 lanes, 8 slices, 64-bit PC, 8 rows): 14 B per
  // entry, 112 B of table, 1024 B of stacks.
  struct Storage {
    uint32_t entry_bits = 0;
    uint32_t entries = 0;
    uint32_t table_bytes = 0;
    uint32_t stack_bytes = 0;
  };
  static Storage storage(uint32_t warps, uint32_t lanes, uint32_t max_slices, uint32_t stack_rows,
                         uint32_t pc_bits);

 private:
  struct Column {
    uint32_t pc = 0;
    uint32_t reconvergence_pc = 0;
  };
  struct PhysicalRow {
    std::vector<Column> columns;  // one per slice id (lanes of them: the narrowest split)
    ptx::LaneMask mask = 0;
  };

  SliceEntry& live(uint32_t e);
  const SliceEntry& live(uint32_t e) const;
  SliceEntry& with_task(uint32_t e);
  Column& column(const SliceEntry& s, uint32_t row);
  const Column& column(const SliceEntry& s, uint32_t row) const;
  ptx::LaneMask row_mask(const SliceEntry& s, uint32_t row) const;
  void set_row(SliceEntry& s, uint32_t row, uint32_t pc, uint32_t reconvergence_pc, ptx::LaneMask mask);
  void require_rows(const SliceEntry& s, uint32_t rows, uint32_t pc) const;
  void settle(SliceEntry& s);  // pops reconverged and empty rows, updates pc and status

  uint32_t warps_;
  uint32_t lanes_;
  uint32_t stack_rows_;
  std::vector<SliceEntry> entries_;               // warps * lanes
  std::vector<std::vector<PhysicalRow>> stacks_;  // [warp][row]
};

}  // namespace simtlm::hw
