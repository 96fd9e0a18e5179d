#include "hw/sc/sm.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

#include "models/ptx/call_link.hpp"
#include "models/ptx/grid_rules.hpp"

namespace simtlm::hw {

namespace {

std::string hex32(uint32_t v) {
  static const char* digits = "0123456789abcdef";
  std::string s = "0x";
  for (int shift = 28; shift >= 0; shift -= 4) s += digits[(v >> shift) & 0xf];
  return s;
}

// The SM's divergence parameters with what only it knows: its number, its contexts and CTAs.
DivergenceParams unit_params(uint32_t id, const SmParams& p) {
  DivergenceParams d = p.divergence;
  d.sm_id = id;
  d.contexts = p.max_warps;
  d.ctas = p.max_ctas;
  return d;
}

}  // namespace

Sm::Sm(sc_core::sc_module_name name, uint32_t id, const SmParams& params, const TimingKernel& kernel,
       const SmUnits& units)
    : sc_module(name),
      id_(id),
      p_(params),
      k_(kernel),
      majority_(*units.majority),
      coalescer_(params.segment_bytes, params.line_bytes, params.coalescing),
      passes_((ptx::kWarpSize + params.simd_width - 1) / params.simd_width),
      unit_(make_divergence_unit(unit_params(id, params), kernel, *this,
                                 CompactionUnits{units.permutation, units.compactor})),
      slots_(unit_->slots().data()),
      slots_share_contexts_(unit_->slots_share_contexts()),
      timing_(static_cast<uint32_t>(unit_->slots().size())),
      contexts_(params.max_warps),
      context_used_(params.max_warps, 0),
      ctas_(params.max_ctas),
      scheduler_(params.scheduler, static_cast<uint32_t>(unit_->slots().size()), params.active_set),
      ready_(static_cast<uint32_t>(unit_->slots().size()), 0),
      issued_(static_cast<uint32_t>(unit_->slots().size()), 0),
      loop_pc_(params.max_warps, ptx::kNoTarget),
      cache_cycle_(static_cast<uint32_t>(unit_->slots().size()), kNever),
      cache_why_(static_cast<uint32_t>(unit_->slots().size()), Stall::no_warp),
      cache_cls_(static_cast<uint32_t>(unit_->slots().size()), OpClass::integer),
      is_stale_(static_cast<uint32_t>(unit_->slots().size()), 0),
      lsu_("lsu", static_cast<int>(id), params.clock, params.line_bytes, params.lsu,
           [this](uint64_t tag, const Answer& answer) { on_response(tag, answer); }) {
  lsu_.on_unblocked = [this] { wake_at(now_cycle()); };
  lsu_.on_memory_error = [this](const OutstandingRequest& r, const std::string& status,
                                const std::string& at) { memory_error(r, status, at); };
  stats_.per_branch.resize(k_.fn.code.size());
  if (params.divergence.traits().forms_warps) warp_sync_ = std::make_unique<WarpSyncChecker>();
  if (const std::string refusal = unit_->refusal(); !refusal.empty()) throw ptx::KernelError(refusal);
  wave.mask.assign(static_cast<uint32_t>(unit_->slots().size()), 0);
  wave.depth.assign(static_cast<uint32_t>(unit_->slots().size()), 0);
  declare_method_process(cycle_handle, "cycle_method", SC_CURRENT_USER_MODULE, cycle);
  sensitive << wake_;
  dont_initialize();
}

Sm::~Sm() = default;

SmStats Sm::stats() const {
  SmStats s = stats_;
  s.divergence = unit_->stats();
  if (warp_sync_) s.warp_sync_hazards = warp_sync_->hazards();
  return s;
}

void Sm::next_kernel() {
  if (warp_sync_) {
    warp_sync_done_ = warp_sync_hazards();
    warp_sync_->reset();
  }
  stats_ = SmStats{};
  stats_.per_branch.resize(k_.fn.code.size());
  unit_->next_kernel();
  invalidate_all();
  // Refused as at construction; the SM issues nothing of a refused kernel.
  if (const std::string refusal = unit_->refusal(); !refusal.empty()) fail(refusal, true);
}

// ---- resources and CTA launch -------------------------------------------------------------------------

bool Sm::can_accept() const {
  return !failed_ && work_->fits(SmOccupancy{p_.max_ctas, p_.max_warps, p_.max_threads, p_.registers,
                                             p_.shared_bytes, resident_ctas_, resident_warps_,
                                             resident_threads_, used_registers_, used_shared_});
}

void Sm::launch_cta(uint64_t linear_id) {
  invalidate_all();
  const uint64_t now = now_cycle();
  uint32_t c = 0;
  while (ctas_[c].live) ++c;
  Cta& cta = ctas_[c];
  cta.live = true;
  cta.ctx.linear_id = linear_id;
  cta.ctx.ctaid = ptx::cta_coordinates(k_.launch.grid, linear_id);
  if (warp_sync_)
    warp_sync_->start_cta(c, static_cast<uint32_t>(linear_id), k_.warps_per_cta, k_.shared_per_cta);
  cta.ctx.smid = id_;
  cta.ctx.shared.assign(k_.shared_per_cta, 0);
  cta.ctx.count_changed_writes = true;
  cta.barriers.reset(k_.warps_per_cta, k_.threads_per_cta);
  cta.barriers_before = cta.barriers.completions();
  cta.contexts.clear();
  const WorkFootprint footprint = work_->footprint();
  cta.warps = footprint.contexts;
  cta.threads = footprint.threads;
  cta.registers = footprint.registers;
  cta.shared = footprint.shared;
  std::vector<ptx::LaneMask> valid;
  uint32_t next = 0;
  for (uint32_t i = 0; i < cta.warps; ++i) {
    while (context_used_[next]) ++next;
    valid.push_back(work_->start_context(claim_context(cta, next).ctx, cta.ctx, i));
  }
  cta.warps_left = cta.warps;
  ++resident_ctas_;
  resident_warps_ += cta.warps;
  resident_threads_ += cta.threads;
  used_registers_ += cta.registers;
  used_shared_ += cta.shared;
  ++stats_.ctas;
  stats_.max_resident_ctas = std::max<uint64_t>(stats_.max_resident_ctas, resident_ctas_);
  stats_.warps += cta.warps;
  unit_->launch_cta(c, linear_id, cta.contexts, valid, now);
  if (wave.enabled) refresh_wave();
  wake_at(now);
}

Sm::Context& Sm::claim_context(Cta& cta, uint32_t index) {
  context_used_[index] = 1;
  Context& context = contexts_[index];
  ++context.generation;
  context.reg_ready.assign(k_.fn.regs.size(), 0);
  loop_pc_[index] = ptx::kNoTarget;
  cta.contexts.push_back(index);
  return context;
}

ptx::LaneMask Sm::give_tasks(uint32_t c, uint32_t warp, ptx::LaneMask lanes) {
  const Cta& cta = ctas_[c];
  Context& context = contexts_[cta.contexts[warp]];
  const ptx::LaneMask given = work_->give_tasks(cta.ctx.linear_id, context.ctx, lanes);
  // A new task's registers hold nothing in flight; responses for the previous task's are ignored.
  ++context.generation;
  std::fill(context.reg_ready.begin(), context.reg_ready.end(), 0);
  return given;
}

void Sm::warp_done(uint32_t c, uint32_t warp) {
  Cta& cta = ctas_[c];
  context_used_[cta.contexts[warp]] = 0;
  --resident_warps_;
  if (--cta.warps_left == 0) finish_cta(cta, now_cycle());
}

void Sm::finish_cta(Cta& cta, uint64_t now) {
  invalidate_all();
  cta.live = false;
  --resident_ctas_;
  resident_threads_ -= cta.threads;
  used_registers_ -= cta.registers;
  used_shared_ -= cta.shared;
  stats_.barriers += cta.barriers.completions() - cta.barriers_before;
  stats_.finish_cycle = now;
  if (on_cta_done) on_cta_done(id_);
}

// ---- what the divergence unit asks ----------------------------------------------------------------------

void Sm::start_slot(uint32_t s, uint64_t ready_cycle, Stall reason) {
  invalidate(s);
  SlotTiming& t = timing_[s];
  t.ready_cycle = ready_cycle;
  t.ready_reason = reason;
  t.at_barrier = false;
  t.pending_fills = 0;
  scheduler_.add_warp(s);
}

void Sm::stop_slot(uint32_t s) {
  invalidate(s);
  scheduler_.remove_warp(s);
}

void Sm::delay_slot(uint32_t s, uint64_t cycle, Stall reason) {
  invalidate(s);
  SlotTiming& t = timing_[s];
  t.ready_cycle = std::max(t.ready_cycle, cycle);
  t.ready_reason = reason;
}

void Sm::stack_request(uint32_t s, uint32_t pc, const MemRequest& r, bool wait) {
  invalidate(s);
  uint64_t tag = LoadStoreUnit::kNoTag;
  if (r.write) {
    ++stats_.spill_requests;
  } else {
    ++stats_.fill_requests;
    if (wait) {
      tag = new_op();
      PendingOp& op = ops_[tag];
      op.slot = s;
      op.generation = slot(s).generation;
      op.remaining = 1;
      op.fill = true;
      ++timing_[s].pending_fills;
    }
  }
  lsu_.send(r.write, r.address, r.bytes, static_cast<int>(s), pc, 0, tag, 0);
}

void Sm::threads_exited(uint32_t c, uint64_t count) {
  ctas_[c].barriers.threads_exited(count);
  release_barrier_waiters(c);
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

void Sm::invalidate_all() {
  for (uint32_t s = 0; s < is_stale_.size(); ++s) invalidate(s);
}

void Sm::refresh() {
  for (const uint32_t s : stale_) {
    if (is_stale_[s]) store(s, slot_ready(s));
  }
  stale_.clear();
#ifdef SIMTLM_CHECK_READY_CACHE
  for (uint32_t s = 0; s < is_stale_.size(); ++s) {
    const SlotReady r = slot_ready(s);
    if (r.cycle != cache_cycle_[s] || r.why != cache_why_[s] || (r.cycle != kNever && r.cls != cache_cls_[s]))
      throw std::logic_error("Sm: stale ready cache for slot " + std::to_string(s));
  }
#endif
}

Sm::SlotReady Sm::slot_ready(uint32_t s) const {
  const IssueSlot& w = slot(s);
  const SlotTiming& timing = timing_[s];
  SlotReady r;
  if (!w.live || timing.at_barrier || timing.pending_fills || w.waits || timing.pending_accesses) {
    r.cycle = kNever;
    r.why = !w.live                   ? Stall::no_warp
            : timing.at_barrier       ? Stall::barrier
            : timing.pending_fills    ? Stall::stack
            : timing.pending_accesses ? Stall::memory
                                      : Stall::compaction;
    return r;
  }
  const IssueInfo& info = k_.info[w.pc];
  r.cls = info.cls;
  // The latest constraint wins and, among equal ones, the first in this order names the stall: the slot's
  // own ready cycle, then each register.
  r.cycle = timing.ready_cycle;
  r.why = timing.ready_reason;
  const Cta& cta = ctas_[w.cta];
  for (const Part& part : w.parts) {
    const uint64_t* ready = contexts_[cta.contexts[part.warp]].reg_ready.data();
    for (uint8_t i = 0; i < info.nsrc + info.ndst; ++i) {
      const uint64_t t = ready[i < info.nsrc ? info.src[i] : info.dst[i - info.nsrc]];
      if (t == kPending) {
        r.cycle = kNever;
        r.why = Stall::memory;
        return r;
      }
      if (t > r.cycle) {
        r.cycle = t;
        r.why = Stall::scoreboard;
      }
    }
  }
  return r;
}

uint64_t Sm::earliest_of(const SlotReady& r, uint64_t now, Stall* reason) const {
  if (r.cycle == kNever) {
    *reason = r.why;
    return kNever;
  }
  uint64_t t = now;
  if (r.cycle > t) {
    t = r.cycle;
    *reason = r.why;
  }
  const uint64_t unit = unit_free_[static_cast<size_t>(r.cls)];
  if (unit > t) {
    t = unit;
    *reason = Stall::pipeline;
  }
  // A full load/store unit takes no memory instruction until a response frees room (it wakes the SM).
  if (r.cls == OpClass::memory && lsu_.blocked()) {
    *reason = Stall::memory_backpressure;
    return kNever;
  }
  return t;
}

void Sm::cycle() {
  if (failed_) return;
  const uint64_t now = now_cycle();
  if (livelock_due && now >= *livelock_due && on_livelock_check(now)) return;
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
  // When slots share the registers of CTA warps, one slot's issue can delay another's, and the unit does not
  // say which: such slots are looked at afresh on every cycle and after every issue.
  if (slots_share_contexts_) invalidate_all();
  const auto slots = static_cast<uint32_t>(timing_.size());
  for (uint32_t n = 0; n < p_.issue_width && !failed_; ++n) {
    refresh();
    // A slot is ready when its own constraints and its unit allow an issue now (earliest_of(), unrolled).
    std::array<uint8_t, kOpClasses> unit_ok;
    for (size_t k = 0; k < kOpClasses; ++k) unit_ok[k] = unit_free_[k] <= now;
    if (lsu_.blocked()) unit_ok[static_cast<size_t>(OpClass::memory)] = 0;
    // Through local pointers: a store through uint8_t* may alias anything, members would be reloaded.
    const uint64_t* cycle = cache_cycle_.data();
    const OpClass* cls = cache_cls_.data();
    uint8_t* ready = ready_.data();
    uint8_t any = 0;
    for (uint32_t s = 0; s < slots; ++s) {
      ready[s] = (cycle[s] <= now) & unit_ok[static_cast<size_t>(cls[s])];
      any |= ready[s];
    }
    const int picked = any ? scheduler_.pick(ready_) : WarpScheduler::kNone;
    if (picked == WarpScheduler::kNone) {
      // The stall charged to a cycle without issue is the most pressing one among the warps (enum order).
      for (uint32_t s = 0; n == 0 && s < slots; ++s) {
        Stall why = Stall::no_warp;
        if (earliest_cached(s, now, &why) > now && slot(s).live && (stall == Stall::no_warp || why < stall))
          stall = why;
      }
      break;
    }
    issue(static_cast<uint32_t>(picked), now);
    if (slots_share_contexts_) {
      invalidate_all();
    } else {
      // Looked at now, while what it reads is still in the host's cache.
      store(static_cast<uint32_t>(picked), slot_ready(static_cast<uint32_t>(picked)));
    }
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
  // Sleep until the earliest cycle some slot could issue; memory responses and launches wake us earlier.
  // The stall found now is charged to the cycles slept through, so a slot that can issue on the next cycle
  // ends the search: no cycle is slept through then.
  uint64_t next = kNever;
  Stall next_stall = Stall::no_warp;
  refresh();
  for (uint32_t s = 0; s < slots; ++s) {
    Stall why = Stall::no_warp;
    const uint64_t t = earliest_cached(s, now + 1, &why);
    if (t <= now + 1) {
      next = now + 1;
      break;
    }
    next = std::min(next, t);
    if (slot(s).live && (next_stall == Stall::no_warp || why < next_stall)) next_stall = why;
  }
  last_stall_ = next_stall;
  if (wave.enabled) refresh_wave();
  if (next != kNever) wake_at(next);
}

// ---- issue --------------------------------------------------------------------------------------------

// Executes code[pc] for every part of the slot. Returns false after a fault (the SM has failed).
bool Sm::execute_parts(const IssueSlot& w, uint32_t pc, uint64_t now, Issued& out) {
  Cta& cta = ctas_[w.cta];
  uint32_t packed = 0;
  std::fill_n(out.taken.begin(), w.parts.size(), 0);
  std::fill_n(out.exited.begin(), w.parts.size(), 0);
  // Only the executor throws KernelError: one handler around the loop spares a copy of each step.
  try {
    for (size_t i = 0; i < w.parts.size(); ++i) {
      const Part& part = w.parts[i];
      if (!part.mask) continue;
      Context& c = context(cta, part.warp);
      c.ctx.clock = now;
      if (warp_sync_) warp_sync_->issue(w.cta, part.warp, part.mask, c.ctx.valid & ~c.ctx.exited);
      const ptx::WarpStep step = k_.executor.execute(c.ctx, pc, part.mask);
      if (warp_sync_) check_warp_sync(w, part, pc, step);
      out.kind = step.kind;
      out.hook_cycles = std::max(out.hook_cycles, step.hook_cycles);
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
            out.local_slot_lane[packed] = uint64_t(cta.contexts[part.warp]) << 8 | lane;
            out.mem_lanes |= ptx::LaneMask{1} << packed;
            ++packed;
          }
          break;
        default:
          if (i == 0) {
            out.call_lanes = step.active;
            out.call_entry = &c.ctx.call_entry;
          }
          break;
      }
    }
  } catch (const ptx::KernelError& e) {
    fail(std::string(e.what()) + " (SM " + std::to_string(id_) + ", cycle " + std::to_string(now) + ")",
         true);
    return false;
  }
  return true;
}

void Sm::issue(uint32_t s, uint64_t now) {
  const IssueSlot& w = slot(s);
  Cta& cta = ctas_[w.cta];
  const uint32_t pc = w.pc;
  unit_->before_issue(s, pc, now);
  Issued issued;
  if (!execute_parts(w, pc, now, issued)) return;
  const ptx::LaneMask mask = unit_->view(s).lanes;
  const auto lanes = static_cast<uint32_t>(std::popcount(mask));
  ++stats_.warp_instructions;
  issued_[s] = 1;
  stats_.thread_instructions += lanes;
  stats_.lane_slots += uint64_t(passes_) * p_.simd_width;
  if (grid_thread_instructions) {
    *grid_thread_instructions += lanes;
    if (*grid_thread_instructions > k_.budget) {
      fail(ptx::budget_exceeded_message(k_.budget, where(w, pc)), true);
      return;
    }
  }
  wave.issued_slot = s;
  wave.issued_mask = mask;
  if (wave.enabled) wave.issue_valid.pulse();
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
  SlotTiming& timing = timing_[s];
  // A hook's decision (a herded branch or load) occupies the issue stage for its cycles.
  timing.ready_cycle = now + 1 + issued.hook_cycles;
  timing.ready_reason = Stall::pipeline;
  switch (issued.kind) {
    case ptx::StepKind::branch: {
      BranchVote vote;
      try {
        if (unit_cycle) *unit_cycle = now;
        vote = majority_.vote(unit_->taken_lanes(s, issued.taken), mask);
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
      timing.ready_cycle = now + pipe.latency + issued.hook_cycles;
      timing.ready_reason = Stall::branch;
      if (k_.fn.code[pc].target <= pc) note_loop(w, pc, issued.taken);
      unit_->branch(s, pc, issued.taken, now);
      return;
    }
    case ptx::StepKind::exit:
      unit_->exit(s, pc, issued.exited, now);
      return;
    case ptx::StepKind::barrier:
      unit_->executed(s, pc, issued.call_lanes, now);
      if (!arrive_at_barrier(s, pc, issued, now)) return;
      break;
    case ptx::StepKind::memory:
      unit_->executed(s, pc, issued.call_lanes, now);
      memory(s, pc, issued, now);
      break;
    default:
      if (issued.call_entry && ptx::is_indirect_call(k_.fn, pc)) {
        unit_->indirect_call(s, pc, issued.call_lanes, *issued.call_entry, now);
      } else {
        unit_->executed(s, pc, issued.call_lanes, now);
      }
      break;
  }
  unit_->completed(s, pc, now);
}

// ---- errors and reports -------------------------------------------------------------------------------

void Sm::fail(const std::string& message, bool kernel_fault) {
  if (failed_) return;
  failed_ = true;
  if (on_error) on_error(message, kernel_fault);
}

}  // namespace simtlm::hw
