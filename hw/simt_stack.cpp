#include "hw/simt_stack.hpp"

#include <algorithm>

namespace simtlm::hw {

SimtStack::SimtStack(const StackParams& params, uint32_t warp) : params_(params), storage_(params, warp) {}

void SimtStack::append_state(std::vector<uint64_t>& out) const {
  out.push_back(uint64_t(pc_) << 32 | rpc_);
  out.push_back(uint64_t(mask_) << 32 | exited_);
  out.push_back(uint64_t(past_carrier_) << 32 | live_sync_.size());
  for (const auto& [join, count] : live_sync_) out.push_back(uint64_t(join) << 32 | count);
  out.push_back(calls_.size());
  for (const CallLevel& c : calls_) out.push_back(uint64_t(c.caller_depth) << 32 | c.returned);
  storage_.append_state(out);
}

void SimtStack::reset(uint32_t pc, LaneMask mask) {
  storage_.clear();
  counters_ = StackCounters{};
  pc_ = pc;
  mask_ = mask;
  rpc_ = ptx::kNoTarget;
  exited_ = 0;
  past_carrier_ = false;
  live_sync_.clear();
  calls_.clear();
  counters_.max_depth = depth();
}

size_t SimtStack::depth() const {
  return storage_.size() + (params_.discipline == Discipline::postdom && mask_ ? 1 : 0);
}

void SimtStack::push(const StackEntry& e, StackUpdate& u) {
  u.spills += storage_.push(e);
  if (e.kind == EntryKind::sync) ++live_sync_[e.reconvergence_pc];
  counters_.max_depth = std::max<uint64_t>(counters_.max_depth, depth());
}

StackEntry SimtStack::pop(StackUpdate& u) {
  StackEntry e;
  u.fills += storage_.pop(&e);
  ++u.pops;
  if (e.kind == EntryKind::sync && --live_sync_[e.reconvergence_pc] == 0)
    live_sync_.erase(e.reconvergence_pc);
  return e;
}

StackUpdate SimtStack::ssy(uint32_t reconvergence_pc) {
  StackUpdate u;
  if (params_.discipline == Discipline::token && mask_ && reconvergence_pc != ptx::kNoTarget) {
    push(StackEntry{EntryKind::sync, reconvergence_pc, reconvergence_pc, mask_}, u);
    ++u.pushes;
    ++counters_.sync_pushes;
  }
  return finish(u);
}

StackUpdate SimtStack::branch(const BranchOutcome& b) {
  StackUpdate u;
  past_carrier_ = false;
  const LaneMask taken = b.taken & mask_;
  const LaneMask not_taken = mask_ & ~taken;
  const uint32_t r = b.reconvergence_pc;
  if (!taken || b.target == b.fallthrough) {
    pc_ = b.fallthrough;
  } else if (!not_taken) {
    pc_ = b.target;
  } else if (params_.discipline == Discipline::token) {
    // Algorithm 1: the not-taken lanes wait in a DIV token, the taken lanes run first.
    push(StackEntry{EntryKind::div, b.fallthrough, r, not_taken}, u);
    ++u.pushes;
    u.diverged = true;
    mask_ = taken;
    pc_ = b.target;
  } else if (b.fallthrough == r && b.target == r) {
    pc_ = r;
  } else {
    // The executing entry becomes the one waiting at r; a path already at r is not pushed (it would pop
    // at once and the waiting entry covers its lanes). When the executing entry already reconverges at r,
    // the entry below waits there with all its lanes: the paths replace the executing entry instead of
    // stacking another waiting one (as GPGPU-Sim does), so a loop that loses lanes on every iteration keeps
    // a constant depth.
    u.diverged = true;
    const ptx::DivergentPaths paths = ptx::divergent_paths(b.fallthrough, b.target, r, rpc_);
    if (paths.keep_waiting) push(StackEntry{EntryKind::path, r, rpc_, mask_}, u);
    const bool run_taken = paths.push_taken;  // the path on top executes; its entry lives in registers
    if (run_taken && paths.push_not_taken) {
      push(StackEntry{EntryKind::path, b.fallthrough, r, not_taken}, u);
      ++u.pushes;
    }
    ++u.pushes;  // the path that now executes
    pc_ = run_taken ? b.target : b.fallthrough;
    mask_ = run_taken ? taken : not_taken;
    rpc_ = r;
    counters_.max_depth = std::max<uint64_t>(counters_.max_depth, depth());
  }
  settle(u);
  return finish(u);
}

StackUpdate SimtStack::advance(uint32_t next_pc) {
  StackUpdate u;
  past_carrier_ = false;
  pc_ = next_pc;
  settle(u);
  return finish(u);
}

StackUpdate SimtStack::exit(LaneMask lanes, uint32_t next_pc) {
  StackUpdate u;
  past_carrier_ = false;
  lanes &= mask_;
  exited_ |= lanes;
  mask_ &= ~lanes;
  pc_ = next_pc;
  settle(u);
  return finish(u);
}

StackUpdate SimtStack::call(LaneMask lanes, uint32_t return_pc, uint32_t entry_pc) {
  const ptx::CallGroup group{entry_pc, lanes};
  return call_groups(&group, 1, return_pc);
}

StackUpdate SimtStack::call_groups(const ptx::CallGroup* groups, size_t count, uint32_t return_pc) {
  StackUpdate u;
  past_carrier_ = false;
  LaneMask calling = 0;
  for (size_t i = 0; i < count; ++i) calling |= groups[i].lanes & mask_;
  if (calling) {
    // The caller's entry never matches a join: under token its join field is not a PC.
    const uint32_t join = params_.discipline == Discipline::token ? kCallFrame : rpc_;
    push(StackEntry{EntryKind::path, return_pc, join, mask_}, u);
    ++u.pushes;
    calls_.push_back(CallLevel{storage_.size(), 0});
    // The later groups wait above the caller's entry, the second on top; each runs when the groups before
    // it have returned (settle pops it once no executing lane is left).
    size_t first = count;
    for (size_t i = count; i-- > 0;) {
      const LaneMask lanes = groups[i].lanes & mask_;
      if (!lanes) continue;
      if (first != count) {
        push(StackEntry{EntryKind::path, groups[first].entry_pc, kCallFrame, groups[first].lanes & mask_}, u);
        ++u.pushes;
      }
      first = i;
    }
    pc_ = groups[first].entry_pc;
    mask_ = groups[first].lanes & mask_;
    rpc_ = kCallFrame;
    counters_.max_depth = std::max<uint64_t>(counters_.max_depth, depth());
  } else {
    pc_ = return_pc;
  }
  settle(u);
  return finish(u);
}

StackUpdate SimtStack::ret(LaneMask lanes, uint32_t next_pc) {
  if (calls_.empty()) return exit(lanes, next_pc);
  StackUpdate u;
  past_carrier_ = false;
  lanes &= mask_;
  calls_.back().returned |= lanes;
  mask_ &= ~lanes;
  pc_ = next_pc;
  settle(u);
  return finish(u);
}

void SimtStack::settle(StackUpdate& u) {
  const bool token = params_.discipline == Discipline::token;
  for (;;) {
    if (mask_) {
      if (!token) {
        if (pc_ != rpc_) return;
      } else {
        // Only a join of a live region can carry the pop; peeking at the top may need a fill, as the
        // paper's "popping requires access to spilled entries".
        if (past_carrier_ || !live_sync_.count(pc_)) return;
        u.fills += storage_.fill_if_empty();
        if (storage_.top().reconvergence_pc != pc_) return;
      }
    } else if (storage_.empty()) {
      return;  // every lane exited
    }
    const bool call_done = !calls_.empty() && storage_.size() == calls_.back().caller_depth;
    const StackEntry e = pop(u);
    pc_ = e.pc;
    mask_ = e.mask & ~exited_;
    if (call_done) {
      calls_.pop_back();
    } else if (!calls_.empty()) {
      mask_ &= ~calls_.back().returned;
    }
    rpc_ = e.reconvergence_pc;
    past_carrier_ = e.kind == EntryKind::sync;
  }
}

StackUpdate SimtStack::finish(StackUpdate u) {
  if (u.diverged) ++counters_.divergent_branches;
  const StackTiming& t = params_.timing;
  u.cycles = uint64_t(u.diverged) * t.divergent_branch + uint64_t(u.pops) * t.pop +
             uint64_t(u.spills) * t.spill + uint64_t(u.fills) * t.fill;
  counters_.pushes += u.pushes;
  counters_.pops += u.pops;
  counters_.spills += u.spills;
  counters_.fills += u.fills;
  counters_.cycles += u.cycles;
  u.next_pc = pc_;
  u.mask = mask_;
  u.done = mask_ == 0;
  return u;
}

}  // namespace simtlm::hw
