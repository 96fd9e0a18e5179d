#include "hw/divergence/warp_slices.hpp"

#include <algorithm>
#include <bit>
#include <limits>
#include <stdexcept>
#include <string>

#include "models/ptx/task_mode.hpp"

namespace simtlm::hw {

namespace {

ptx::LaneMask lowest_lanes(ptx::LaneMask mask, uint32_t n) {
  ptx::LaneMask out = 0;
  for (; n && mask; --n, mask &= mask - 1) out |= mask & (~mask + 1);
  return out;
}

}  // namespace

WarpSlices::WarpSlices(const DivergenceParams& params, const TimingKernel& kernel, SlotHost& host)
    : DivergenceUnit(params, kernel, host,
                     (params.wpu.subdivides() ? 2 : 1) * params.wpu.width * params.wpu.depth),
      wst_(params.wpu.depth, params.wpu.width, params.wpu.stack_rows),
      sub_(params.wpu.width * params.wpu.depth) {
  wpu_.task_mode = true;
  wpu_.policy = std::string(kWpuPolicyNames[static_cast<size_t>(p_.wpu.policy)]);
}

std::string WarpSlices::refusal() const {
  return ptx::task_mode_refusal(k_.module, k_.fn);
}

void WarpSlices::next_kernel() {
  DivergenceUnit::next_kernel();
  wpu_ = WpuStats{};
  wpu_.task_mode = true;
  wpu_.policy = std::string(kWpuPolicyNames[static_cast<size_t>(p_.wpu.policy)]);
}

SlotView WarpSlices::view(uint32_t slot) const {
  return {slots_[slot].parts[0].mask, slot < capacity() ? wst_.entry(slot).tos : 1u};
}

// ---- the parallel-for ----------------------------------------------------------------------------------

void WarpSlices::launch_cta(uint32_t cta, uint64_t, const std::vector<uint32_t>&,
                            const std::vector<ptx::LaneMask>&, uint64_t now) {
  const WpuParams& w = p_.wpu;
  cta_ = cta;
  live_ = true;
  tasks_left_ = host_.tasks_left(cta);
  launch_cycle_ = interval_start_ = now;
  interval_tasks_ = 0;
  draining_ = false;
  running_ = 0;
  asu_.reset();
  for (Subdivision& s : sub_) s = Subdivision{};
  const Organization hardware{w.width, w.depth};
  org_ = hardware;
  phase_ = Phase::executing;
  dws_ = w.policy == WpuPolicy::dws;
  if (w.adapts()) {
    const uint64_t needed = uint64_t(w.min_intervals) * w.tasks_per_interval * w.contexts();
    if (tasks_left_ < needed) {
      // Too few tasks to adapt: RobustDWS leaves it to DWS, Robust SIMD takes the fallback organization.
      wpu_.fallback = true;
      if (w.policy == WpuPolicy::robust_dws) {
        dws_ = true;
      } else {
        org_.width = std::min(w.fallback_width, w.width);
        org_.depth = std::min(w.fallback_depth, w.depth * ((w.width + org_.width - 1) / org_.width));
      }
    } else {
      asu_ = std::make_unique<AdaptationStateUnit>(
          AsuParams{w.strategy == WpuStrategy::width_only   ? AdaptStrategy::width_only
                    : w.strategy == WpuStrategy::depth_only ? AdaptStrategy::depth_only
                                                            : AdaptStrategy::dwrep,
                    w.stride == WpuStride::inc ? AdaptStride::inc : AdaptStride::anneal, w.width, w.depth,
                    hardware, w.min_gain});
      org_ = asu_->current();
      phase_ = Phase::adapting;
    }
  }
  wst_.reset();
  configure(org_, now);
  if (running_ == 0) finish(now);
}

void WarpSlices::configure(Organization org, uint64_t ready_cycle) {
  org_ = org;
  std::vector<std::vector<uint32_t>> slices(wst_.warps());
  for (uint32_t warp = 0; warp < wst_.warps(); ++warp) {
    wst_.merge(warp);
    slices[warp] = wst_.split(warp, org.width);
  }
  // Active slices go round the warps, so a narrower width with the same depth keeps one slice per warp.
  uint32_t active = 0;
  for (uint32_t k = 0; k < slices[0].size(); ++k) {
    for (uint32_t warp = 0; warp < wst_.warps(); ++warp) {
      if (k >= slices[warp].size()) continue;
      const uint32_t e = slices[warp][k];
      if (active < org.depth && fetch(e, ready_cycle)) {
        ++active;
      } else if (active >= org.depth) {
        wst_.set_status(e, SliceStatus::dormant);
      }
    }
  }
}

bool WarpSlices::fetch(uint32_t e, uint64_t ready_cycle) {
  const SliceEntry& entry = wst_.entry(e);
  const auto lanes_here = static_cast<uint32_t>(std::popcount(entry.mask));
  const uint64_t n = std::min<uint64_t>(lanes_here, tasks_left_);
  if (n == 0 || draining_) return false;
  const ptx::LaneMask lanes = host_.give_tasks(cta_, e, lowest_lanes(entry.mask, static_cast<uint32_t>(n)));
  tasks_left_ -= n;
  wst_.start(e, lanes, 0);
  IssueSlot& s = slots_[e];
  s.live = true;
  s.waits = false;
  s.cta = cta_;
  ++s.generation;
  s.parts.assign(1, Part{e, lanes});
  s.pc = 0;
  ++running_;
  host_.start_slot(e, ready_cycle, Stall::branch);
  return true;
}

void WarpSlices::show(uint32_t e) {
  IssueSlot& s = slots_[e];
  const Subdivision& sub = sub_[e];
  s.parts[0].mask = wst_.executing(e) & ~(sub.live ? sub.lanes : 0);
  s.pc = sub.live && sub.memory ? sub.first_pc : wst_.entry(e).pc;
}

void WarpSlices::settle(uint32_t e, uint64_t now) {
  const auto ncode = static_cast<uint32_t>(k_.fn.code.size());
  if (slots_[e].live && !wst_.stack_empty(e) && wst_.entry(e).pc >= ncode && !sub_[e].live)
    exit_lanes(e, wst_.executing(e), wst_.entry(e).pc, now);
}

// ---- outcomes of an issue ------------------------------------------------------------------------------

void WarpSlices::branch(uint32_t slot, uint32_t pc, const PartMasks& taken, uint64_t now) {
  const ptx::Instr& in = k_.fn.code[pc];
  if (slot >= capacity()) {  // a second split only meets unconditional branches (the others are sync points)
    second_step(slot - capacity(), in.target, now);
    return;
  }
  const uint32_t e = slot;
  if (sub_[e].live && sub_[e].memory) {
    first_step(e, in.target, now);
    return;
  }
  const ptx::LaneMask running = slots_[e].parts[0].mask;
  const ptx::LaneMask t = taken[0] & running;
  const uint32_t reconvergence = k_.info[pc].reconvergence_pc;
  try {
    wst_.branch(e, t, in.target, pc + 1, reconvergence);
  } catch (const std::runtime_error& error) {
    // A stack of wpu.stack_rows rows too shallow for the kernel's nesting: the run stops with the message,
    // as a call-stack overflow does, instead of the exception leaving the SystemC process.
    host_.unit_failed(std::string(error.what()) + "; raise wpu.stack_rows (docs/configs.md), at kernel " +
                      k_.fn.name + ", " + k_.where_pc(pc));
    return;
  }
  if (dws_ && !sub_[e].live && t && t != running && in.target != reconvergence && pc + 1 != reconvergence) {
    split_branch(e, pc, running & ~t, reconvergence, now);
    return;
  }
  show(e);
  after_stack_change(e, now);
  settle(e, now);
}

void WarpSlices::executed(uint32_t slot, uint32_t pc, ptx::LaneMask, uint64_t now) {
  if (slot >= capacity()) {
    second_step(slot - capacity(), pc + 1, now);
    return;
  }
  if (sub_[slot].live && sub_[slot].memory) {
    first_step(slot, pc + 1, now);
    return;
  }
  wst_.advance(slot, pc + 1);
  show(slot);
  after_stack_change(slot, now);
  settle(slot, now);
}

void WarpSlices::exit(uint32_t slot, uint32_t pc, const PartMasks& exited, uint64_t now) {
  // Exits are sync points of DWS: only a slice's one split issues them.
  exit_lanes(slot, exited[0], pc + 1, now);
}

void WarpSlices::exit_lanes(uint32_t e, ptx::LaneMask lanes, uint32_t next_pc, uint64_t now) {
  lanes &= wst_.executing(e);
  wst_.exit(e, lanes, next_pc);
  const auto n = static_cast<uint64_t>(std::popcount(lanes));
  wpu_.tasks += n;
  interval_tasks_ += n;
  if (wst_.stack_empty(e)) {
    slice_finished(e, now);
    return;
  }
  show(e);
  after_stack_change(e, now);
  settle(e, now);
}

void WarpSlices::slice_finished(uint32_t e, uint64_t now) {
  slots_[e].live = false;
  host_.stop_slot(e);
  --running_;
  if (phase_ != Phase::executing && interval_tasks_ >= interval_threshold()) draining_ = true;
  if (!draining_ && fetch(e, now + 1)) return;
  if (running_ > 0) return;
  if (tasks_left_ > 0 && phase_ != Phase::executing) {
    end_interval(now);
  } else {
    finish(now);
  }
}

// ---- sampling intervals ----------------------------------------------------------------------------------

// Section VI-C: the tasks an average thread of the WPU completes in an interval times the WPU's threads, so
// every organization is sampled over as many tasks (a narrow one is not sampled over a few short tasks).
uint64_t WarpSlices::interval_threshold() const {
  return uint64_t(p_.wpu.tasks_per_interval) * p_.wpu.contexts();
}

double WarpSlices::best_cpt_of(Organization org) const {
  double best = std::numeric_limits<double>::infinity();
  for (const WpuInterval& i : wpu_.intervals) {
    if (i.width == org.width && i.depth == org.depth && !i.dws && i.tasks)
      best = std::min(best, double(i.cycles) / double(i.tasks));
  }
  return best;
}

void WarpSlices::end_interval(uint64_t now) {
  const uint64_t cycles = now - interval_start_;
  wpu_.intervals.push_back(
      WpuInterval{interval_start_, cycles, interval_tasks_, org_.width, org_.depth, true, dws_});
  wpu_.adaptation_cycles += cycles;
  Organization next = org_;
  if (phase_ == Phase::adapting) {
    next = asu_->end_interval(cycles, interval_tasks_);
    if (asu_->converged()) {
      next = asu_->best();
      phase_ = p_.wpu.policy == WpuPolicy::robust_dws ? Phase::dws_trial : Phase::executing;
      dws_ = phase_ == Phase::dws_trial;
    }
  } else {  // the end of RobustDWS's interval with DWS: keep it when it beat the best organization without
    const double with_dws =
        interval_tasks_ ? double(cycles) / double(interval_tasks_) : std::numeric_limits<double>::infinity();
    dws_ = with_dws < best_cpt_of(org_);
    phase_ = Phase::executing;
  }
  ++wpu_.reconfigurations;
  wpu_.stall_cycles += p_.wpu.reconfigure_cycles;
  interval_start_ = now;
  interval_tasks_ = 0;
  draining_ = false;
  configure(next, now + 1 + p_.wpu.reconfigure_cycles);
  if (running_ == 0) finish(now);
}

void WarpSlices::finish(uint64_t now) {
  if (!live_) return;
  if (interval_tasks_ && phase_ != Phase::executing) {
    wpu_.intervals.push_back(WpuInterval{interval_start_, now - interval_start_, interval_tasks_, org_.width,
                                         org_.depth, false, dws_});
  }
  live_ = false;
  wpu_.cycles = now - launch_cycle_;
  wpu_.width = org_.width;
  wpu_.depth = org_.depth;
  wpu_.dws_chosen = dws_;
  // The last warp_done ends the WPU's pseudo-CTA; nothing of this unit is touched after it.
  const uint32_t contexts = capacity();
  for (uint32_t e = 0; e < contexts; ++e) host_.warp_done(cta_, e);
}

}  // namespace simtlm::hw
