// The per-warp reconvergence stack of the functional runner, in the classic immediate post-dominator style
// (as in GPGPU-Sim). Header-only so the runner's per-instruction path inlines it; it never allocates after
// reserve() except when a divergence nests deeper than ever before.
//
// Invariants: the top entry is the one that executes; every entry's lanes are a subset of the entry below
// it; sibling entries are disjoint; no entry is empty.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "models/ptx/call_link.hpp"
#include "models/ptx/functional.hpp"
#include "models/ptx/reconvergence.hpp"

namespace simtlm::ptx {

// reconvergence_pc of a call frame entry: the lanes that called a .func; it never pops at a PC, only when
// every one of its lanes has returned (or exited).
inline constexpr uint32_t kCallFrame = 0xfffffffeu;

struct SimtEntry {
  uint32_t pc = 0;
  uint32_t reconvergence_pc = kNoTarget;  // kNoTarget: the virtual exit, left only by exiting
  LaneMask mask = 0;
};

class SimtStack {
 public:
  void reserve(size_t depth) { entries_.reserve(depth); }
  void reset(uint32_t pc, LaneMask mask) {
    entries_.clear();
    if (mask) entries_.push_back(SimtEntry{pc, kNoTarget, mask});
  }
  bool empty() const { return entries_.empty(); }
  size_t depth() const { return entries_.size(); }
  const std::vector<SimtEntry>& entries() const { return entries_; }
  SimtEntry& top() { return entries_.back(); }
  const SimtEntry& top() const { return entries_.back(); }
  LaneMask live_lanes() const { return entries_.empty() ? 0 : entries_.front().mask; }

  // Pops entries that have reached their reconvergence PC; returns false when the warp has no lanes left.
  bool settle() {
    while (!entries_.empty() && entries_.back().pc == entries_.back().reconvergence_pc) entries_.pop_back();
    return !entries_.empty();
  }

  // The top entry executed a branch at pc: lanes in taken go to target, the other lanes of the top entry
  // to pc + 1. Returns true when the warp diverged. On divergence the top entry waits at the reconvergence
  // PC and two entries are pushed, the fall-through path first and the taken path on top, so the taken path
  // runs first. A path already at the reconvergence PC is not pushed (it would pop at once), and when the
  // top entry already reconverges at the same PC it is replaced instead of kept, so a divergent loop does
  // not grow the stack by one entry per iteration.
  bool branch(uint32_t pc, uint32_t target, LaneMask taken, uint32_t reconvergence_pc) {
    SimtEntry& t = entries_.back();
    taken &= t.mask;
    const LaneMask not_taken = t.mask & ~taken;
    if (!not_taken) {
      t.pc = target;
      return false;
    }
    if (!taken || target == pc + 1) {
      t.pc = pc + 1;
      return false;
    }
    const DivergentPaths paths = divergent_paths(pc + 1, target, reconvergence_pc, t.reconvergence_pc);
    if (!paths.keep_waiting && entries_.size() > 1) {  // the bottom entry stays the union
      entries_.pop_back();
    } else {
      t.pc = reconvergence_pc;
    }
    if (paths.push_not_taken) entries_.push_back(SimtEntry{pc + 1, reconvergence_pc, not_taken});
    if (paths.push_taken) entries_.push_back(SimtEntry{target, reconvergence_pc, taken});
    return true;
  }

  // The lanes of the top entry in `lanes` call the .func at entry_pc: the top entry waits at return_pc with
  // all its lanes (those that do not call wait there too) and a call frame entry runs the callee. Branches
  // inside the callee push entries above the frame, so they reconverge at the callee's own post-dominators.
  // Returns true when an entry was pushed.
  bool call(uint32_t return_pc, uint32_t entry_pc, LaneMask lanes) {
    SimtEntry& t = entries_.back();
    lanes &= t.mask;
    t.pc = return_pc;
    if (!lanes) return false;
    entries_.push_back(SimtEntry{entry_pc, kCallFrame, lanes});
    return true;
  }

  // An indirect call whose lanes call different functions (models/ptx/call_link.hpp): the top entry waits at
  // return_pc with all its lanes and each group gets its own call frame entry, the first group on top, so
  // the groups run one after the other and reconverge at return_pc once all have returned. Returns true when
  // an entry was pushed.
  bool call_groups(uint32_t return_pc, const CallGroup* groups, size_t count) {
    const LaneMask mask = entries_.back().mask;
    entries_.back().pc = return_pc;
    bool pushed = false;
    for (size_t i = count; i-- > 0;) {
      const LaneMask lanes = groups[i].lanes & mask;
      if (!lanes) continue;
      entries_.push_back(SimtEntry{groups[i].entry_pc, kCallFrame, lanes});
      pushed = true;
    }
    return pushed;
  }

  // Lanes of the top entry return from the innermost call at pc: they leave every entry down to and
  // including its call frame entry and wait at the return PC below it until every caller lane returned.
  // The top entry's other lanes go on to pc + 1.
  void ret(uint32_t pc, LaneMask lanes) {
    SimtEntry& t = entries_.back();
    lanes &= t.mask;
    t.pc = pc + 1;
    if (!lanes) return;
    size_t frame = entries_.size();
    while (frame > 0 && entries_[frame - 1].reconvergence_pc != kCallFrame) --frame;
    if (frame == 0) {  // not inside a call: a thread's ret
      exit(pc, lanes);
      return;
    }
    for (size_t i = frame - 1; i < entries_.size(); ++i) entries_[i].mask &= ~lanes;
    entries_.erase(std::remove_if(entries_.begin() + std::ptrdiff_t(frame - 1), entries_.end(),
                                  [](const SimtEntry& e) { return !e.mask; }),
                   entries_.end());
  }

  // Lanes of the top entry exit at pc: they leave every entry; the top entry's other lanes go on to pc + 1.
  void exit(uint32_t pc, LaneMask lanes) {
    SimtEntry& t = entries_.back();
    lanes &= t.mask;
    t.pc = pc + 1;
    if (!lanes) return;
    for (SimtEntry& e : entries_) e.mask &= ~lanes;
    entries_.erase(
        std::remove_if(entries_.begin(), entries_.end(), [](const SimtEntry& e) { return !e.mask; }),
        entries_.end());
  }

 private:
  std::vector<SimtEntry> entries_;
};

}  // namespace simtlm::ptx
