// The per-warp reconvergence stack of the timing model, as a plain class (a SystemC module wraps it later).
// The executing path (pc, mask) lives in registers; the stack holds deferred entries in a SpillEngine.
// Every call takes what the functional model reported and returns what the stack did; no time passes
// here, the caller charges StackUpdate::cycles.
//
// postdom: a divergent branch turns the executing path into an entry waiting at the reconvergence PC and
//   pushes the not-taken and taken paths (those already at the reconvergence PC are not pushed); a path
//   that reaches its reconvergence PC pops. Depth counts the executing entry, as GPGPU-Sim's stack does.
// token: the paper's discipline (sec. III, Algorithms 1 and 2). ssy() pushes a SYNC token with the active
//   mask; a divergent branch pushes a DIV token with the not-taken lanes and runs the taken lanes; reaching
//   the join of the innermost region pops (the carrier instruction of SASS): a DIV token resumes its lanes
//   at its pc, the SYNC token restores the region's mask past the carrier. Exited lanes are dropped from
//   popped entries; when every executing lane has exited the next entry pops.
// Calls (both disciplines): call() pushes the caller's path waiting at the return PC and runs the calling
//   lanes in the callee; ret() drops the returning lanes from the callee's entries (as they pop) until the
//   caller's entry pops with every lane of the call (docs/simt-stack.md, "Calls").
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "hw/spill_engine.hpp"
#include "hw/stack_params.hpp"
#include "models/ptx/simt_stack.hpp"

namespace simtlm::hw {

// Join field of the executing path inside a call: never a PC, so only returns end the call (the same marker
// as the functional runner's stack).
using ptx::kCallFrame;

struct BranchOutcome {
  uint32_t pc = 0;
  LaneMask active = 0;  // lanes that executed the branch
  LaneMask taken = 0;   // lanes that take it
  uint32_t target = 0;
  uint32_t fallthrough = 0;
  uint32_t reconvergence_pc = ptx::kNoTarget;  // Cfg::reconvergence_pc; kNoTarget = only by exiting
};

// What one call did.
struct StackUpdate {
  uint32_t pushes = 0;
  uint32_t pops = 0;
  uint32_t spills = 0;  // chunks written
  uint32_t fills = 0;   // chunks read back
  bool diverged = false;
  uint64_t cycles = 0;  // cost of the events above under StackParams::timing
  uint32_t next_pc = 0;
  LaneMask mask = 0;
  bool done = false;  // no lanes left
};

struct StackCounters {
  uint64_t pushes = 0;
  uint64_t sync_pushes = 0;
  uint64_t pops = 0;
  uint64_t divergent_branches = 0;
  uint64_t max_depth = 0;
  uint64_t spills = 0;
  uint64_t fills = 0;
  uint64_t cycles = 0;
  // Sums the counts of another stack (max_depth: the deeper of the two).
  StackCounters& operator+=(const StackCounters& o) {
    pushes += o.pushes;
    sync_pushes += o.sync_pushes;
    pops += o.pops;
    divergent_branches += o.divergent_branches;
    max_depth = std::max(max_depth, o.max_depth);
    spills += o.spills;
    fills += o.fills;
    cycles += o.cycles;
    return *this;
  }
};

class SimtStack {
 public:
  SimtStack(const StackParams& params, uint32_t warp);

  void reset(uint32_t pc, LaneMask mask);
  uint32_t pc() const { return pc_; }
  LaneMask mask() const { return mask_; }
  bool done() const { return mask_ == 0; }
  size_t depth() const;  // entries, including the executing one under postdom
  Discipline discipline() const { return params_.discipline; }

  // Token discipline: the warp passes an SSY point of the region that joins at reconvergence_pc.
  // A no-op under postdom.
  StackUpdate ssy(uint32_t reconvergence_pc);
  // The executing path ran a branch; lanes outside the executing mask are ignored.
  StackUpdate branch(const BranchOutcome& b);
  // The executing path ran a non-branch instruction and goes on at next_pc.
  StackUpdate advance(uint32_t next_pc);
  // lanes of the executing path exited; the others go on at next_pc.
  StackUpdate exit(LaneMask lanes, uint32_t next_pc);
  // lanes of the executing path call the function at entry_pc; the executing path resumes at return_pc.
  StackUpdate call(LaneMask lanes, uint32_t return_pc, uint32_t entry_pc);
  // An indirect call whose lanes call different functions (ptx::call_groups): the groups run one after the
  // other, the first group first, each from its function's entry, within one call level; the executing path
  // resumes at return_pc when every group has returned.
  StackUpdate call_groups(const ptx::CallGroup* groups, size_t count, uint32_t return_pc);
  // lanes of the executing path return from the innermost call; the others go on at next_pc.
  StackUpdate ret(LaneMask lanes, uint32_t next_pc);
  size_t call_depth() const { return calls_.size(); }
  // Everything that decides the stack's future (paths, entries, calls; not its counters), appended as words
  // (the timing model's livelock watch, hw/sc/sm_livelock.cpp).
  void append_state(std::vector<uint64_t>& out) const;

  const StackCounters& counters() const { return counters_; }
  const SpillEngine& storage() const { return storage_; }
  std::vector<MemRequest> take_requests() { return storage_.take_requests(); }

 private:
  void push(const StackEntry& e, StackUpdate& u);
  StackEntry pop(StackUpdate& u);
  void settle(StackUpdate& u);  // pops at joins and when no executing lane is left
  StackUpdate finish(StackUpdate u);

  StackParams params_;
  SpillEngine storage_;
  StackCounters counters_;
  uint32_t pc_ = 0;
  LaneMask mask_ = 0;
  uint32_t rpc_ = ptx::kNoTarget;  // postdom: reconvergence PC of the executing entry
  LaneMask exited_ = 0;
  bool past_carrier_ = false;               // token: the SYNC token just popped here, do not pop again
  std::map<uint32_t, uint32_t> live_sync_;  // token: join PC -> SYNC tokens on the stack
  struct CallLevel {
    size_t caller_depth = 0;  // storage size with the caller's entry on top
    LaneMask returned = 0;    // lanes of the call that returned
  };
  std::vector<CallLevel> calls_;  // innermost last
};

}  // namespace simtlm::hw
