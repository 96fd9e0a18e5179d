#include "hw/sc/sm.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace simtlm::hw {

namespace {

std::string hex32(uint32_t v) {
  static const char* digits = "0123456789abcdef";
  std::string s = "0x";
  for (int shift = 28; shift >= 0; shift -= 4) s += digits[(v >> shift) & 0xf];
  return s;
}

}  // namespace

const char* stall_name(Stall s) {
  static constexpr const char* kNames[] = {
      "no_warp", "memory", "scoreboard", "pipeline", "memory_backpressure",
      "branch",  "stack",  "compaction", "barrier"};
  return kNames[static_cast<size_t>(s)];
}

Sm::Sm(sc_core::sc_module_name name, uint32_t id, const SmParams& params, const TimingKernel& kernel,
       const SmUnits& units)
    : sc_module(name),
      id_(id),
      p_(params),
      k_(kernel),
      majority_(*units.majority),
      units_(units),
      coalescer_(params.segment_bytes, params.line_bytes),
      passes_((ptx::kWarpSize + params.simd_width - 1) / params.simd_width),
      warps_(params.max_warps),
      contexts_(params.max_warps),
      ctas_(params.max_ctas),
      scheduler_(params.scheduler, params.max_warps, params.active_set),
      ready_(params.max_warps, 0),
      earliest_(params.max_warps, kNever),
      earliest_why_(params.max_warps, Stall::no_warp),
      lsu_("lsu", static_cast<int>(id), params.clock, params.line_bytes, params.lsu,
           [this](uint64_t tag) { on_response(tag); }) {
  lsu_.on_unblocked = [this] { wake_at(now_cycle()); };
  for (uint32_t slot = 0; slot < warps_.size(); ++slot) {
    warps_[slot].stack = std::make_unique<SimtStack>(p_.stack, id_ * p_.max_warps + slot);
  }
  stats_.per_branch.resize(k_.fn.code.size());
  if (const std::string refusal = calls_refused_under_compaction(); !refusal.empty())
    throw ptx::KernelError(refusal);
  slot_used_.assign(p_.max_warps, 0);
  if (compacting())
    permutation_ = std::make_unique<LanePermutationMap>(p_.permutation, ptx::kWarpSize, p_.permutation_seed);
  wave.mask.assign(p_.max_warps, 0);
  wave.depth.assign(p_.max_warps, 0);
  SC_METHOD(cycle);
  sensitive << wake_;
  dont_initialize();
}

// ---- resources and CTA launch -------------------------------------------------------------------------

bool Sm::can_accept() const {
  return !failed_ && resident_ctas_ < p_.max_ctas && resident_warps_ + k_.warps_per_cta <= p_.max_warps &&
         resident_threads_ + k_.threads_per_cta <= p_.max_threads &&
         used_registers_ + k_.registers_per_thread * k_.warps_per_cta * ptx::kWarpSize <= p_.registers &&
         used_shared_ + k_.shared_per_cta <= p_.shared_bytes;
}

void Sm::launch_cta(uint64_t linear_id) {
  others_changed_ = true;
  const uint64_t now = now_cycle();
  uint32_t c = 0;
  while (ctas_[c].live) ++c;
  Cta& cta = ctas_[c];
  const ptx::Dim3& g = k_.launch.grid;
  cta.live = true;
  cta.ctx.linear_id = linear_id;
  cta.ctx.ctaid =
      ptx::Dim3{static_cast<uint32_t>(linear_id % g.x), static_cast<uint32_t>(linear_id / g.x % g.y),
                static_cast<uint32_t>(linear_id / (uint64_t(g.x) * g.y))};
  cta.ctx.smid = id_;
  cta.ctx.shared.assign(k_.shared_per_cta, 0);
  cta.barriers.reset(k_.warps_per_cta, k_.threads_per_cta);
  cta.barriers_before = cta.barriers.completions();
  cta.slots.clear();
  cta.live_warps = k_.warps_per_cta;
  uint32_t slot = 0;
  for (uint32_t i = 0; i < k_.warps_per_cta; ++i) {
    while (slot_used_[slot]) ++slot;
    slot_used_[slot] = 1;
    Context& c = contexts_[slot];
    ++c.generation;
    k_.executor.init_warp(c.ctx, cta.ctx, i);
    c.reg_ready.assign(k_.fn.regs.size(), 0);
    Warp& w = warps_[slot];
    w.live = true;
    w.cta = static_cast<uint32_t>(&cta - ctas_.data());
    ++w.generation;
    w.parts.assign(1, Part{i, c.ctx.valid});
    w.pc = 0;
    w.at_sync = false;
    w.ready_cycle = now;
    w.at_barrier = false;
    w.pending_fills = 0;
    w.previous_pc = ptx::kNoTarget;
    if (!compacting()) w.stack->reset(0, c.ctx.valid);
    scheduler_.add_warp(slot);
    cta.slots.push_back(slot);
    wave.mask[slot] = c.ctx.valid;
    wave.depth[slot] = compacting() ? 1 : static_cast<uint32_t>(w.stack->depth());
  }
  ++resident_ctas_;
  resident_warps_ += k_.warps_per_cta;
  resident_threads_ += k_.threads_per_cta;
  used_registers_ += k_.registers_per_thread * k_.warps_per_cta * ptx::kWarpSize;
  used_shared_ += k_.shared_per_cta;
  ++stats_.ctas;
  stats_.max_resident_ctas = std::max<uint64_t>(stats_.max_resident_ctas, resident_ctas_);
  stats_.warps += k_.warps_per_cta;
  if (compacting()) {
    launch_compacted(cta, now);
  } else {
    for (uint32_t s : cta.slots) settle(warps_[s], s, now);
  }
  wake_at(now);
}

void Sm::finish_warp(uint32_t slot, uint64_t now) {
  Warp& w = warps_[slot];
  stats_.divergence.stack += w.stack->counters();
  w.live = false;
  slot_used_[slot] = 0;
  wave.mask[slot] = 0;
  wave.depth[slot] = 0;
  scheduler_.remove_warp(slot);
  --resident_warps_;
  Cta& cta = ctas_[w.cta];
  if (--cta.live_warps == 0) finish_cta(cta, now);
}

void Sm::finish_cta(Cta& cta, uint64_t now) {
  others_changed_ = true;
  cta.live = false;
  --resident_ctas_;
  resident_threads_ -= k_.threads_per_cta;
  used_registers_ -= k_.registers_per_thread * k_.warps_per_cta * ptx::kWarpSize;
  used_shared_ -= k_.shared_per_cta;
  stats_.barriers += cta.barriers.completions() - cta.barriers_before;
  stats_.finish_cycle = now;
  if (on_cta_done) on_cta_done(id_);
}

// ---- the cycle loop -----------------------------------------------------------------------------------

uint64_t Sm::now_cycle() const {
  return static_cast<uint64_t>(std::ceil(sc_core::sc_time_stamp() / p_.clock - 1e-9));
}

void Sm::wake_at(uint64_t cycle) {
  if (failed_) return;
  if (last_eval_cycle_ != kNever && cycle <= last_eval_cycle_) cycle = last_eval_cycle_ + 1;
  const sc_core::sc_time target = p_.clock * static_cast<double>(cycle);
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  wake_.notify(target > now ? target - now : sc_core::SC_ZERO_TIME);
}

uint64_t Sm::earliest_issue(uint32_t slot, uint64_t now, Stall* reason) const {
  const Warp& w = warps_[slot];
  if (!w.live) {
    *reason = Stall::no_warp;
    return kNever;
  }
  if (w.at_barrier) {
    *reason = Stall::barrier;
    return kNever;
  }
  if (w.pending_fills) {
    *reason = Stall::stack;
    return kNever;
  }
  if (w.at_sync) {
    *reason = Stall::compaction;
    return kNever;
  }
  const IssueInfo& info = k_.info[warp_pc(w)];
  uint64_t t = now;
  if (w.ready_cycle > t) {
    t = w.ready_cycle;
    *reason = w.ready_reason;
  }
  const Cta& cta = ctas_[w.cta];
  for (const Part& part : w.parts) {
    const std::vector<uint64_t>& ready = contexts_[cta.slots[part.warp]].reg_ready;
    for (uint8_t i = 0; i < info.nsrc + info.ndst; ++i) {
      const uint64_t r = ready[i < info.nsrc ? info.src[i] : info.dst[i - info.nsrc]];
      if (r == kPending) {
        *reason = Stall::memory;
        return kNever;
      }
      if (r > t) {
        t = r;
        *reason = Stall::scoreboard;
      }
    }
  }
  const uint64_t unit = unit_free_[static_cast<size_t>(info.cls)];
  if (unit > t) {
    t = unit;
    *reason = Stall::pipeline;
  }
  // A full load/store unit takes no memory instruction until a response frees room (it wakes the SM).
  if (info.cls == OpClass::memory && lsu_.blocked()) {
    *reason = Stall::memory_backpressure;
    return kNever;
  }
  return t;
}

void Sm::cycle() {
  if (failed_) return;
  const uint64_t now = now_cycle();
  if (last_eval_cycle_ != kNever && now <= last_eval_cycle_) {
    wake_at(last_eval_cycle_ + 1);
    return;
  }
  // Cycles slept through since the last evaluation stalled for the reason found then.
  if (last_eval_cycle_ != kNever && last_had_warps_) {
    const uint64_t skipped = now - last_eval_cycle_ - 1;
    stats_.stalls[static_cast<size_t>(last_stall_)] += skipped;
    stats_.active_cycles += skipped;
  }
  last_eval_cycle_ = now;
  last_had_warps_ = resident_warps_ > 0;
  bool issued = false;
  Stall stall = Stall::no_warp;
  // With compaction, slots share the registers of CTA warps: one slot's issue can delay another's, so every
  // slot is looked at again before sleeping.
  others_changed_ = compacting();
  uint32_t classes_issued = 0;
  for (uint32_t n = 0; n < p_.issue_width && !failed_; ++n) {
    bool any = false;
    for (uint32_t slot = 0; slot < warps_.size(); ++slot) {
      Stall& why = earliest_why_[slot];
      why = Stall::no_warp;
      earliest_[slot] = earliest_issue(slot, now, &why);
      ready_[slot] = earliest_[slot] <= now;
      any = any || ready_[slot];
      // The stall charged to the cycle is the most pressing one among the warps (enum order).
      if (n == 0 && !ready_[slot] && warps_[slot].live && (stall == Stall::no_warp || why < stall))
        stall = why;
    }
    if (!any) break;
    const int slot = scheduler_.pick(ready_);
    if (slot == WarpScheduler::kNone) break;
    classes_issued |= 1u << static_cast<unsigned>(k_.info[warp_pc(warps_[slot])].cls);
    issue(static_cast<uint32_t>(slot), now);
    earliest_[slot] = kRecompute;
    issued = true;
  }
  if (failed_) return;
  if (last_had_warps_) ++stats_.active_cycles;
  if (issued) {
    ++stats_.issue_cycles;
  } else if (last_had_warps_) {
    ++stats_.stalls[static_cast<size_t>(stall)];
  }
  last_stall_ = stall;
  last_had_warps_ = resident_warps_ > 0;
  // Sleep until the earliest cycle some warp could issue; memory responses and launches wake us earlier.
  uint64_t next = kNever;
  Stall next_stall = Stall::no_warp;
  for (uint32_t slot = 0; slot < warps_.size(); ++slot) {
    // What the issue loop found still holds for a slot that neither issued nor uses a unit that just
    // became busy, unless the issue changed other warps (barrier release, compaction, a CTA came or went).
    Stall why = earliest_why_[slot];
    uint64_t t = earliest_[slot];
    const bool stale =
        others_changed_ || t == kRecompute ||
        (t != kNever && (classes_issued >> static_cast<unsigned>(k_.info[warp_pc(warps_[slot])].cls) & 1));
    if (stale) {
      why = Stall::no_warp;
      t = earliest_issue(slot, now + 1, &why);
    } else {
      t = std::max(t, now + 1);
    }
    next = std::min(next, t);
    if (warps_[slot].live && t > now + 1 && (next_stall == Stall::no_warp || why < next_stall))
      next_stall = why;
  }
  last_stall_ = next_stall;
  if (next != kNever) wake_at(next);
}

// ---- issue --------------------------------------------------------------------------------------------

ptx::LaneMask Sm::lanes_of(const Warp& w) const {
  uint32_t n = 0;
  for (const Part& p : w.parts) n += static_cast<uint32_t>(std::popcount(p.mask));
  return n >= 32 ? ~ptx::LaneMask{0} : (ptx::LaneMask{1} << n) - 1;
}

// Executes code[pc] for every part of the slot. Returns false after a fault (the SM has failed).
bool Sm::execute_parts(Warp& w, uint32_t pc, uint64_t now, Issued& out) {
  Cta& cta = ctas_[w.cta];
  uint32_t packed = 0;
  for (size_t i = 0; i < w.parts.size(); ++i) {
    const Part& part = w.parts[i];
    if (!part.mask) continue;
    Context& c = context(cta, part.warp);
    c.ctx.clock = now;
    ptx::WarpStep step;
    try {
      step = k_.executor.execute(c.ctx, pc, part.mask);
    } catch (const ptx::KernelError& e) {
      fail(std::string(e.what()) + " (SM " + std::to_string(id_) + ", cycle " + std::to_string(now) + ")",
           true);
      return false;
    }
    out.kind = step.kind;
    switch (step.kind) {
      case ptx::StepKind::branch:
        out.taken[i] = k_.fn.code[pc].guard == ptx::kNoReg ? part.mask : (step.taken & part.mask);
        break;
      case ptx::StepKind::exit:
        out.exited[i] = step.active & part.mask;
        break;
      case ptx::StepKind::barrier:
        if (step.active) out.barrier.emplace_back(static_cast<uint32_t>(i), step);
        break;
      case ptx::StepKind::memory:
        out.mem.space = step.mem.space;
        out.mem.bytes = step.mem.bytes;
        out.mem.is_store = step.mem.is_store;
        out.mem.is_atomic = step.mem.is_atomic;
        for (ptx::LaneMask m = step.active; m; m &= m - 1) {
          const auto lane = static_cast<uint32_t>(std::countr_zero(m));
          out.mem.addr[packed] = step.mem.addr[lane];
          out.local_slot_lane[packed] = uint64_t(cta.slots[part.warp]) << 8 | lane;
          out.mem_lanes |= ptx::LaneMask{1} << packed;
          ++packed;
        }
        break;
      default:
        if (i == 0) out.call_lanes = step.active;
        break;
    }
  }
  return true;
}

void Sm::issue(uint32_t slot, uint64_t now) {
  Warp& w = warps_[slot];
  Cta& cta = ctas_[w.cta];
  uint32_t pc = warp_pc(w);
  if (!compacting()) {
    SimtStack& stack = *w.stack;
    if (stack.discipline() == Discipline::token && !k_.ssy.points_at(pc).empty()) {
      for (uint32_t join : k_.ssy.fire(pc, w.previous_pc)) apply_stack(w, stack.ssy(join), now, slot, pc);
    }
    w.parts[0].mask = stack.mask();
  }
  Issued issued;
  if (!execute_parts(w, pc, now, issued)) return;
  w.previous_pc = pc;
  // Without compaction the slot's lanes are its warp's; with it, the vote only needs the threads packed.
  const ptx::LaneMask mask = compacting() ? lanes_of(w) : w.parts[0].mask;
  const auto lanes = static_cast<uint32_t>(std::popcount(mask));
  ++stats_.warp_instructions;
  stats_.thread_instructions += lanes;
  stats_.lane_slots += uint64_t(passes_) * p_.simd_width;
  if (grid_thread_instructions) {
    *grid_thread_instructions += lanes;
    if (*grid_thread_instructions > k_.budget) {
      fail("instruction budget of " + std::to_string(k_.budget) + " thread instructions exceeded in " +
               where(w, pc),
           true);
      return;
    }
  }
  wave.issued_slot = slot;
  wave.issued_mask = mask;
  if (trace) {
    std::string line = std::to_string(now) + " sm " + std::to_string(id_) + " cta " +
                       std::to_string(cta.ctx.linear_id) + " warp " + std::to_string(w.parts[0].warp) +
                       " pc " + std::to_string(pc) + " mask " + hex32(wave.issued_mask) + " " +
                       ptx::op_name(k_.fn.code[pc].op);
    for (size_t i = 1; i < w.parts.size(); ++i) {
      line.append(" +warp ");
      line.append(std::to_string(w.parts[i].warp));
    }
    trace(line);
  }
  const IssueInfo& info = k_.info[pc];
  const auto cls = static_cast<size_t>(info.cls);
  const PipeParams& pipe = p_.pipes[cls];
  unit_free_[cls] = now + std::max(pipe.initiation_interval, passes_);
  for (const Part& part : w.parts) {
    std::vector<uint64_t>& ready = context(cta, part.warp).reg_ready;
    for (uint8_t i = 0; i < info.ndst; ++i) ready[info.dst[i]] = now + pipe.latency;
  }
  w.ready_cycle = now + 1;
  w.ready_reason = Stall::pipeline;
  switch (issued.kind) {
    case ptx::StepKind::branch: {
      const ptx::Instr& in = k_.fn.code[pc];
      ptx::LaneMask taken = compacting() ? 0 : issued.taken[0];
      for (size_t i = 0, k = 0; compacting() && i < w.parts.size(); ++i) {  // packed like lanes_of
        for (ptx::LaneMask m = w.parts[i].mask; m; m &= m - 1, ++k) {
          if (issued.taken[i] >> std::countr_zero(m) & 1) taken |= ptx::LaneMask{1} << k;
        }
      }
      BranchVote vote;
      try {
        if (unit_cycle) *unit_cycle = now;
        vote = majority_.vote(taken, mask);
      } catch (const std::exception& e) {  // an RtlMismatch under --rtl-check
        fail(std::string(e.what()) + "\n  at " + where(w, pc), false);
        return;
      }
      if (info.conditional) {
        ++stats_.branches;
        ++stats_.per_branch[pc].executed;
        if (!vote.uniform) {
          ++stats_.divergent_branches;
          ++stats_.per_branch[pc].divergent;
        }
      }
      w.ready_cycle = now + pipe.latency;
      w.ready_reason = Stall::branch;
      if (compacting()) {
        compacted_branch(w, slot, pc, issued, now);
        return;
      }
      apply_stack(w,
                  w.stack->branch(BranchOutcome{pc, mask, taken, in.target, pc + 1, info.reconvergence_pc}),
                  now, slot, pc);
      break;
    }
    case ptx::StepKind::exit:
      if (compacting()) {
        compacted_exit(w, slot, issued, pc, now);
        return;
      }
      if (k_.fn.code[pc].returns_from != ptx::kNoTarget) {  // a .func returns: its lanes wait for the others
        apply_stack(w, w.stack->ret(issued.exited[0], pc + 1), now, slot, pc);
        break;
      }
      exit_lanes(w, slot, issued.exited[0], pc + 1, now);
      return;
    case ptx::StepKind::barrier:
      if (!compacting()) apply_stack(w, w.stack->advance(pc + 1), now, slot, pc);
      if (!arrive_at_barrier(w, pc, issued, now)) return;
      break;
    case ptx::StepKind::memory:
      if (!compacting()) apply_stack(w, w.stack->advance(pc + 1), now, slot, pc);
      memory(w, slot, pc, issued, now);
      break;
    default:
      if (!compacting()) apply_stack(w, advance_or_call(w, pc, issued.call_lanes), now, slot, pc);
      break;
  }
  if (compacting()) {
    compacted_advance(w, slot, pc + 1, now);
  } else {
    w.parts[0].mask = w.stack->mask();
    settle(w, slot, now);
  }
}

void Sm::apply_stack(Warp& w, const StackUpdate& u, uint64_t now, uint32_t slot, uint32_t pc) {
  if (u.cycles) {
    w.ready_cycle = std::max(w.ready_cycle, now + 1 + u.cycles);
    w.ready_reason = Stall::stack;
  }
  w.parts[0].mask = w.stack->mask();
  wave.depth[slot] = static_cast<uint32_t>(w.stack->depth());
  wave.mask[slot] = w.stack->mask();
  if (!u.spills && !u.fills) return;
  for (const MemRequest& r : w.stack->take_requests()) {
    uint64_t tag = LoadStoreUnit::kNoTag;
    if (r.write) {
      ++stats_.spill_requests;
    } else {
      ++stats_.fill_requests;
      // A preset's measured costs already include the memory round trip; otherwise the warp waits for it.
      if (!p_.stack_timing_measured) {
        PendingOp op;
        op.slot = slot;
        op.generation = w.generation;
        op.remaining = 1;
        op.fill = true;
        tag = new_op(op);
        ++w.pending_fills;
      }
    }
    lsu_.send(r.write, r.address, r.bytes, static_cast<int>(slot), pc, 0, tag, 0);
  }
}

void Sm::exit_lanes(Warp& w, uint32_t slot, ptx::LaneMask lanes, uint32_t next_pc, uint64_t now) {
  lanes &= w.stack->mask();
  apply_stack(w, w.stack->exit(lanes, next_pc), now, slot, next_pc);
  Cta& cta = ctas_[w.cta];
  cta.barriers.threads_exited(static_cast<uint64_t>(std::popcount(lanes)));
  release_barrier_waiters(cta);
  if (w.stack->done()) {
    finish_warp(slot, now);
    if (!cta.live) return;
  } else {
    settle(w, slot, now);
  }
  check_cta_deadlock(cta);
}

void Sm::settle(Warp& w, uint32_t slot, uint64_t now) {
  const auto ncode = static_cast<uint32_t>(k_.fn.code.size());
  if (w.live && !w.stack->done() && w.stack->pc() >= ncode)
    exit_lanes(w, slot, w.stack->mask(), w.stack->pc(), now);
}

// ---- errors and reports -------------------------------------------------------------------------------

std::string Sm::where(const Warp& w, uint32_t pc) const {
  const ptx::Dim3& c = ctas_[w.cta].ctx.ctaid;
  std::string warps = std::to_string(w.parts.empty() ? 0 : w.parts[0].warp);
  for (size_t i = 1; i < w.parts.size(); ++i) {
    warps.push_back('+');  // not operator+: GCC 12 warns falsely on that (-Wrestrict)
    warps.append(std::to_string(w.parts[i].warp));
  }
  return "kernel " + k_.fn.name + ", CTA (" + std::to_string(c.x) + "," + std::to_string(c.y) + "," +
         std::to_string(c.z) + "), warp " + warps + ", SM " + std::to_string(id_) + ", " + k_.where_pc(pc);
}

std::string Sm::describe_warps() const {
  std::string s;
  for (uint32_t slot = 0; slot < warps_.size(); ++slot) {
    const Warp& w = warps_[slot];
    if (!w.live) continue;
    Stall why = Stall::no_warp;
    const uint64_t t = earliest_issue(slot, last_eval_cycle_ == kNever ? 0 : last_eval_cycle_, &why);
    s += "\n  " + where(w, warp_pc(w)) + ", mask " + hex32(lanes_of(w)) + ": ";
    s += t == kNever ? std::string("waits on ") + stall_name(why) : "ready at cycle " + std::to_string(t);
  }
  return s;
}

void Sm::fail(const std::string& message, bool kernel_fault) {
  if (failed_) return;
  failed_ = true;
  if (on_error) on_error(message, kernel_fault);
}

}  // namespace simtlm::hw
