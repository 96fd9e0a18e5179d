// The functional runner: CTAs in linear order (x fastest), one at a time; within a CTA a warp runs until it
// blocks at a barrier, finishes, or takes a backward branch after running RunOptions::warp_quantum warp
// instructions since it was scheduled; then the next ready warp in round-robin order runs. This is fast (no
// per-instruction scheduling decision), deterministic, and lets a warp that spins on a flag or lock set by
// another warp of its CTA make progress (docs/functional-model.md, "Scheduling"). A cooperative launch keeps
// every CTA resident and gives each live CTA one such round in turn (run_cooperative).
//
// Accounting ("active lanes at issue"): an instruction is issued with the top stack entry's mask; it counts
// one warp instruction when that mask is non-empty and popcount(mask) thread instructions, whether or not a
// lane's guard is true. %clock reads the number of warp instructions issued so far in the launch.
//
// Barriers: a barrier id completes when the threads that arrived (counted by lane) reach the count operand
// or, without one, every thread of the CTA that has not exited. bar.arrive does not block. bar.red blocks
// like bar.sync and its result (computed here over the arriving threads) is written when the barrier
// completes. When no warp can run and some wait at a barrier, the CTA is deadlocked.
#include "models/ptx/runner.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <memory>
#include <string>

#include "common/location.hpp"
#include "models/ptx/cta_barriers.hpp"
#include "models/ptx/grid_rules.hpp"
#include "models/ptx/livelock.hpp"
#include "models/ptx/simt_stack.hpp"

namespace simtlm::ptx {
namespace {

enum class WarpState : uint8_t { ready, waiting, done };

struct Warp {
  WarpContext ctx;
  SimtStack stack;
  WarpState state = WarpState::ready;
  uint32_t loop_pc = kNoTarget;  // the last backward branch it took (what it spins in, for messages)
};

// One resident CTA: its context, warps and barriers. A plain launch reuses one for every CTA in turn; a
// cooperative launch holds every CTA of the grid at once. Never moved: its warps point at `cta`.
struct CtaRun {
  CtaContext cta;
  std::vector<Warp> warps;
  CtaBarriers barriers;
  size_t done_warps = 0;
  bool done() const { return done_warps == warps.size(); }
};

// What one scheduling round of a CTA did: whether any warp ran, and whether every warp that ran yielded.
struct Round {
  bool ran = false, all_yielded = true;
};

// std::popcount is a libgcc call unless the target has POPCNT, and this is on the per-instruction path.
inline unsigned lane_count(LaneMask m) {
#if defined(__POPCNT__)
  return std::popcount(m);
#else
  m = m - ((m >> 1) & 0x55555555u);
  m = (m & 0x33333333u) + ((m >> 2) & 0x33333333u);
  return (((m + (m >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
#endif
}

std::string hex_mask(LaneMask m) {
  static const char* digits = "0123456789abcdef";
  std::string s = "0x";
  for (int shift = 28; shift >= 0; shift -= 4) s += digits[(m >> shift) & 0xf];
  return s;
}

class GridRunner {
 public:
  GridRunner(LaunchContext& launch, const Cfg& cfg, const RunOptions& options)
      : launch_(launch),
        fn_(*launch.kernel),
        code_(fn_.code),
        executor_(launch),
        options_(options),
        branch_stats_(code_.size()),
        reconvergence_(code_.size(), kNoTarget),
        conditional_(code_.size(), 0),
        call_entry_(code_.size(), kNoTarget) {
    for (uint32_t pc = 0; pc < code_.size(); ++pc) {
      const Instr& in = code_[pc];
      if (in.op == Op::call && in.call_site != kNoTarget && fn_.call_sites[in.call_site].linked != kNoTarget)
        call_entry_[pc] = fn_.linked_callees[fn_.call_sites[in.call_site].linked].entry_pc;
      if (is_indirect_call(fn_, pc)) call_entry_[pc] = kIndirectCall;
      if (code_[pc].op != Op::bra) continue;
      reconvergence_[pc] = cfg.reconvergence_pc(pc);
      conditional_[pc] = cfg.is_conditional_branch(pc);
    }
  }

  RunStats run() {
    const uint64_t threads = launch_.block.count();
    const uint64_t ctas = launch_.grid.count();
    if (launch_.cooperative) {
      run_cooperative(ctas, threads);
    } else {
      ctas_.push_back(std::make_unique<CtaRun>());
      for (uint64_t id = 0; id < ctas; ++id) {
        run_cta(*ctas_.front(), id, threads);
        if (options_.progress) options_.progress->cta_done(id + 1, ctas, stats_.thread_instructions, 0);
      }
    }
    for (uint32_t pc = 0; pc < code_.size(); ++pc) {
      if (branch_stats_[pc].executed) stats_.per_branch[pc] = branch_stats_[pc];
    }
    stats_.active_lane_sum = stats_.thread_instructions;
    for (const auto& run : ctas_) stats_.barriers += run->barriers.completions();
    return stats_;
  }

 private:
  void start_cta(CtaRun& run, uint64_t linear_id, uint64_t threads) {
    cur_ = &run;
    CtaContext& cta = run.cta;
    cta.linear_id = linear_id;
    cta.ctaid = cta_coordinates(launch_.grid, linear_id);
    cta.smid = static_cast<uint32_t>(linear_id % (launch_.nsm ? launch_.nsm : 1));
    cta.shared.assign(shared_layout(fn_, launch_.dynamic_shared_bytes).cta_bytes, 0);
    const auto nwarps = static_cast<uint32_t>((threads + kWarpSize - 1) / kWarpSize);
    if (run.warps.size() != nwarps) {
      run.warps.resize(nwarps);
      for (Warp& w : run.warps) w.stack.reserve(16);
    }
    run.barriers.reset(nwarps, threads);
    run.done_warps = 0;
    for (uint32_t i = 0; i < nwarps; ++i) {
      Warp& w = run.warps[i];
      w.ctx.cta = &cta;
      w.ctx.warp_in_cta = i;
      executor_.init_warp(w.ctx, cta, i);
      const uint64_t lanes = std::min<uint64_t>(kWarpSize, threads - uint64_t(i) * kWarpSize);
      w.stack.reset(0, lanes == kWarpSize ? ~LaneMask{0} : (LaneMask{1} << lanes) - 1);
      w.state = WarpState::ready;
      w.loop_pc = kNoTarget;
      stats_.max_stack_depth = std::max<uint64_t>(stats_.max_stack_depth, w.stack.depth());
    }
    ++stats_.ctas;
    stats_.warps += nwarps;
  }

  // Runs every ready warp of `run` once, in order; a CTA with live warps none of which can run is
  // deadlocked at its barriers.
  Round run_round(CtaRun& run) {
    cur_ = &run;
    Round round;
    for (Warp& w : run.warps) {
      if (w.state != WarpState::ready) continue;
      round.all_yielded = run_warp(w) && round.all_yielded;
      round.ran = true;
    }
    if (!round.ran) throw KernelError(deadlock_message());
    return round;
  }

  void run_cta(CtaRun& run, uint64_t linear_id, uint64_t threads) {
    start_cta(run, linear_id, threads);
    livelock_.reset();
    while (!run.done()) {
      if (!run_round(run).all_yielded) {
        livelock_.reset();
      } else {
        cta_state(round_state_);
        if (livelock_.yielding_round_repeats(round_state_)) throw KernelError(livelock_message());
      }
    }
  }

  // A cooperative launch (cudaLaunchCooperativeKernel): every CTA is resident at once and they take
  // scheduling rounds in turn, so a CTA spinning on a grid barrier (cooperative_groups' grid.sync(), an
  // atomic counter and a polling load in the grid workspace) lets the others arrive. The livelock proof is
  // the grid's: a round of every live CTA, each yielding, that leaves the whole grid as it was.
  void run_cooperative(uint64_t ctas, uint64_t threads) {
    for (uint64_t id = 0; id < ctas; ++id) {
      ctas_.push_back(std::make_unique<CtaRun>());
      start_cta(*ctas_.back(), id, threads);
    }
    livelock_.reset();
    uint64_t done = 0;
    while (done < ctas) {
      bool all_yielded = true;
      for (const auto& run : ctas_) {
        if (run->done()) continue;
        all_yielded = run_round(*run).all_yielded && all_yielded;
        if (run->done() && options_.progress)
          options_.progress->cta_done(++done, ctas, stats_.thread_instructions, 0);
        else if (run->done())
          ++done;
      }
      if (!all_yielded) {
        livelock_.reset();
        continue;
      }
      round_state_.clear();
      for (const auto& run : ctas_) {
        cur_ = run.get();
        cta_state(cta_state_);
        round_state_.push_back(run->cta.linear_id);
        round_state_.insert(round_state_.end(), cta_state_.begin(), cta_state_.end());
      }
      if (livelock_.yielding_round_repeats(round_state_)) throw KernelError(grid_livelock_message());
    }
  }

  // Runs w until it waits at a barrier, has no lanes left, or yields at a backward branch (returns true).
  bool run_warp(Warp& w) {
    SimtStack& stack = w.stack;
    const auto code_size = static_cast<uint32_t>(code_.size());
    uint64_t ran = 0;
    while (stack.settle()) {
      const uint32_t pc = stack.top().pc;
      const LaneMask mask = stack.top().mask;
      if (pc >= code_size) {  // fell off the end of the code: an implicit exit
        exit_lanes(stack, pc, mask);
        continue;
      }
      w.ctx.clock = stats_.warp_instructions;
      const WarpStep step = executor_.execute(w.ctx, pc, mask);
      if (options_.observer) options_.observer(w.ctx, pc, mask, step);
      if (livelock_.logging() && step.kind == StepKind::memory && (step.mem.is_store || step.mem.is_atomic))
        log_global_writes(step);
      ++stats_.warp_instructions;
      stats_.thread_instructions += lane_count(mask);
      if (stats_.thread_instructions > options_.instruction_budget) throw KernelError(budget_message(w, pc));
      switch (step.kind) {
        case StepKind::branch:
          branch(w, pc, mask, step);
          if (!stack.empty() && stack.top().pc <= pc) {
            w.loop_pc = pc;
            if (ran >= options_.warp_quantum) return true;  // yields; stays ready
          }
          break;
        case StepKind::exit:
          if (code_[pc].returns_from != kNoTarget) {
            stack.ret(pc, step.active);
          } else {
            exit_lanes(stack, pc, step.active);
          }
          break;
        case StepKind::barrier:
          stack.top().pc = pc + 1;
          if (arrive(w, pc, step)) return false;
          break;
        default:
          if (call_entry_[pc] == kIndirectCall) {
            CallGroups groups;
            const size_t count = call_groups(w.ctx.call_entry, step.active & mask, groups);
            if (stack.call_groups(pc + 1, groups.data(), count))
              stats_.max_stack_depth = std::max<uint64_t>(stats_.max_stack_depth, stack.depth());
          } else if (call_entry_[pc] != kNoTarget) {
            if (stack.call(pc + 1, call_entry_[pc], step.active))
              stats_.max_stack_depth = std::max<uint64_t>(stats_.max_stack_depth, stack.depth());
          } else {
            stack.top().pc = pc + 1;
          }
          break;
      }
      ++ran;
    }
    w.state = WarpState::done;
    ++cur_->done_warps;
    return false;
  }

  // The global bytes a store or atomic left, for LivelockWatch (shared and local memory are in cta_state()).
  void log_global_writes(const WarpStep& step) {
    if (step.mem.space != Space::global && step.mem.space != Space::generic) return;
    uint8_t bytes[64];
    const unsigned count = std::min<unsigned>(step.mem.bytes, sizeof bytes);
    for (unsigned lane = 0; lane < kWarpSize; ++lane) {
      if (!(step.active >> lane & 1)) continue;
      const uint64_t addr = step.mem.addr[lane];
      if (!launch_.global->find(addr, count)) continue;  // dropped (out_of_bounds: warn) or not global
      launch_.global->read(addr, bytes, count);
      livelock_.log_write(addr, bytes, count);
    }
  }

  // Everything the next round of the CTA depends on besides global memory, into `state` (cleared first; its
  // capacity is kept from round to round, so a yielding CTA does not allocate its whole state every round).
  void cta_state(std::vector<uint64_t>& state) const {
    state.clear();
    auto append_words = [&state](const uint8_t* bytes, size_t size) {
      for (size_t k = 0; k < size; k += 8) {
        uint64_t word = 0;
        std::memcpy(&word, bytes + k, std::min<size_t>(8, size - k));
        state.push_back(word);
      }
    };
    for (const Warp& w : cur_->warps) {
      state.push_back(uint64_t(w.state));
      for (const SimtEntry& e : w.stack.entries())
        state.push_back(uint64_t(e.pc) << 32 ^ e.reconvergence_pc ^ uint64_t(e.mask) << 16);
      state.push_back(w.stack.depth());
      state.insert(state.end(), w.ctx.regs.begin(), w.ctx.regs.end());
      append_words(w.ctx.local.data(), w.ctx.local.size());
      for (const std::vector<uint8_t>& records : w.ctx.call_records) {
        state.push_back(records.size());
        append_words(records.data(), records.size());
      }
    }
    for (uint32_t id = 0; id < CtaBarriers::kIds; ++id) state.push_back(cur_->barriers.arrived(id));
    append_words(cur_->cta.shared.data(), cur_->cta.shared.size());
  }

  void branch(Warp& w, uint32_t pc, LaneMask mask, const WarpStep& step) {
    const Instr& in = code_[pc];
    const LaneMask taken = in.guard == kNoReg ? mask : step.taken;
    const bool diverged = w.stack.branch(pc, in.target, taken, reconvergence_[pc]);
    if (conditional_[pc]) {
      ++stats_.branches;
      ++branch_stats_[pc].executed;
      if (diverged) {
        ++stats_.divergent_branches;
        ++branch_stats_[pc].divergent;
      }
    }
    if (diverged && w.stack.depth() > stats_.max_stack_depth) stats_.max_stack_depth = w.stack.depth();
  }

  void exit_lanes(SimtStack& stack, uint32_t pc, LaneMask lanes) {
    lanes &= stack.top().mask;
    stack.exit(pc, lanes);
    if (!lanes) return;
    cur_->barriers.threads_exited(lane_count(lanes));
    wake_released();
  }

  // The lanes of step.active arrive at a barrier; returns true when the warp now waits.
  bool arrive(Warp& w, uint32_t pc, const WarpStep& step) {
    if (!step.active) return false;
    if (step.barrier_id >= CtaBarriers::kIds) {
      throw KernelError("barrier id " + std::to_string(step.barrier_id) + " out of range (0..15) in " +
                        location(w, pc));
    }
    const bool waits = cur_->barriers.arrive(w.ctx.warp_in_cta, w.ctx, code_[pc], pc, step);
    if (waits) w.state = WarpState::waiting;
    wake_released();
    return w.state == WarpState::waiting;
  }

  void wake_released() {
    for (uint32_t i : cur_->barriers.take_released()) cur_->warps[i].state = WarpState::ready;
  }

  std::string cta_name() const {
    return "kernel " + fn_.name + ", CTA (" + std::to_string(cur_->cta.ctaid.x) + "," +
           std::to_string(cur_->cta.ctaid.y) + "," + std::to_string(cur_->cta.ctaid.z) + ")";
  }

  std::string pc_name(uint32_t pc) const {
    if (pc == kNoTarget) return "the exit of its function";  // a call frame whose paths meet only at ret
    std::string s = "PC " + std::to_string(pc);
    if (pc >= code_.size()) return s;
    const Instr& in = code_[pc];
    s += " (PTX line " + std::to_string(in.line);
    if (launch_.module && in.loc_file > 0 && in.loc_file < launch_.module->files.size() && in.loc_line > 0) {
      s += ", " + common::location(launch_.module->files[in.loc_file], in.loc_line);
    }
    return s + ")";
  }

  std::string location(const Warp& w, uint32_t pc) const {
    return cta_name() + ", warp " + std::to_string(w.ctx.warp_in_cta) + ", " + pc_name(pc);
  }

  // Says what every warp of the CTA was doing: a livelock shows as warps spinning in a loop while the others
  // wait at a barrier, have finished, or spin too.
  // What warp x is doing; `running` (at pc): the warp that was executing when the run stopped.
  std::string activity(const Warp& x, bool running, uint32_t pc) const {
    std::string a = " warp " + std::to_string(x.ctx.warp_in_cta);
    const uint32_t i = x.ctx.warp_in_cta;
    if (x.state == WarpState::done || x.stack.empty()) return a + " had finished";
    if (x.state == WarpState::waiting)
      return a + " waiting at barrier " + std::to_string(cur_->barriers.wait_barrier(i)) + " at " +
             pc_name(cur_->barriers.wait_pc(i));
    const std::string too = running ? "" : " too";
    if (x.loop_pc != kNoTarget) return a + " spinning" + too + " in the loop closed at " + pc_name(x.loop_pc);
    return a + (running ? " running" : " ready") + " at " + pc_name(running ? pc : x.stack.top().pc);
  }

  std::string budget_message(const Warp& w, uint32_t pc) const {
    std::string s = budget_exceeded_message(options_.instruction_budget, location(w, pc)) + ":";
    s += activity(w, true, pc) + ";";
    for (const Warp& other : cur_->warps) {
      if (&other != &w) s += activity(other, false, pc) + ";";
    }
    s.pop_back();
    return s;
  }

  std::string livelock_message() const {
    std::string s =
        "livelock in " + cta_name() +
        ": a scheduling round left every register, stack, shared and global value as the round "
        "before, so the CTA can never finish (a lock held by a lane of the warp that spins on it "
        "needs sm_70's independent thread scheduling, which a reconvergence stack does not give):";
    for (const Warp& w : cur_->warps) s += activity(w, true, w.stack.empty() ? 0 : w.stack.top().pc) + ";";
    s.pop_back();
    return s;
  }

  // A cooperative grid that cannot finish: typically a grid.sync() that some CTA never reaches (it exited,
  // or took another path), so the others spin on the grid barrier forever. Names the first CTAs.
  std::string grid_livelock_message() {
    std::string s = "livelock in cooperative launch of kernel " + fn_.name + " (" +
                    std::to_string(ctas_.size()) +
                    " CTAs): a scheduling round of every CTA left every register, stack, shared and global "
                    "value as the round before, so the grid can never finish (a grid.sync() that not every "
                    "CTA reaches?):";
    constexpr size_t kNamed = 4;
    size_t named = 0, live = 0;
    for (const auto& run : ctas_) {
      if (run->done()) continue;
      if (++live > kNamed) continue;
      cur_ = run.get();
      s += " CTA (" + std::to_string(run->cta.ctaid.x) + "," + std::to_string(run->cta.ctaid.y) + "," +
           std::to_string(run->cta.ctaid.z) + "):";
      for (const Warp& w : run->warps) s += activity(w, true, w.stack.empty() ? 0 : w.stack.top().pc) + ";";
      ++named;
    }
    const uint64_t finished = ctas_.size() - live;
    if (live > named) s += " and " + std::to_string(live - named) + " more CTAs like them;";
    s += " " + std::to_string(finished) + " CTAs had finished";
    return s;
  }

  // Names every barrier with waiting warps, where they wait, and where the threads they wait for are.
  std::string deadlock_message() const {
    std::string s = "deadlock in " + cta_name() + ":";
    for (uint32_t id = 0; id < CtaBarriers::kIds; ++id) {
      bool any = false;
      for (const Warp& w : cur_->warps) {
        const uint32_t i = w.ctx.warp_in_cta;
        if (!cur_->barriers.waiting(i) || cur_->barriers.wait_barrier(i) != id) continue;
        if (!any) s += " barrier " + std::to_string(id) + " can never complete; waiting:";
        any = true;
        s += " warp " + std::to_string(i) + " (" + std::to_string(lane_count(cur_->barriers.wait_lanes(i))) +
             " threads) at " + pc_name(cur_->barriers.wait_pc(i)) + ";";
      }
      if (!any) continue;
      s += " arrived " + std::to_string(cur_->barriers.arrived(id)) + " of " +
           std::to_string(cur_->barriers.expected(id)) + " threads; missing:";
      for (const Warp& w : cur_->warps) {
        LaneMask missing = w.stack.live_lanes();
        const uint32_t i = w.ctx.warp_in_cta;
        const bool waits_here = cur_->barriers.waiting(i) && cur_->barriers.wait_barrier(i) == id;
        if (waits_here) missing &= ~cur_->barriers.wait_lanes(i);
        if (!missing) continue;
        s += " warp " + std::to_string(w.ctx.warp_in_cta) + " lanes " + hex_mask(missing);
        const auto& entries = w.stack.entries();
        for (auto e = entries.rbegin(); e != entries.rend() && missing; ++e) {
          const LaneMask here = e->mask & missing;
          if (!here) continue;
          missing &= ~here;
          if (cur_->barriers.waiting(i) && e == entries.rbegin()) {
            s += " [" + hex_mask(here) + " waiting at barrier " +
                 std::to_string(cur_->barriers.wait_barrier(i)) + " at " +
                 pc_name(cur_->barriers.wait_pc(i)) + "]";
          } else {
            s += " [" + hex_mask(here) + " at " + pc_name(e->pc) + "]";
          }
        }
        s += ";";
      }
    }
    return s;
  }

  LaunchContext& launch_;
  const Function& fn_;
  const std::vector<Instr>& code_;
  Executor executor_;
  RunOptions options_;
  RunStats stats_;
  std::vector<BranchStats> branch_stats_;  // per PC, folded into RunStats::per_branch at the end
  std::vector<uint32_t> reconvergence_;    // per PC: reconvergence PC of a branch
  std::vector<uint8_t> conditional_;       // per PC: a conditional branch
  std::vector<uint32_t> call_entry_;       // per PC: entry PC of the linked .func a call runs, or:
  static constexpr uint32_t kIndirectCall = kNoTarget - 1;  // the lanes' targets are in call_entry
  std::vector<std::unique_ptr<CtaRun>> ctas_;  // one, reused; or every CTA of a cooperative launch
  CtaRun* cur_ = nullptr;                      // the CTA being run (or reported)
  LivelockWatch livelock_;
  std::vector<uint64_t> round_state_;  // cta_state() of the latest all-yielding round
  std::vector<uint64_t> cta_state_;    // a cooperative round: one CTA's share of round_state_
};

}  // namespace

FunctionalRunner::FunctionalRunner(LaunchContext& launch, const Cfg& cfg, RunOptions options)
    : launch_(launch), cfg_(cfg), options_(options) {}

RunStats FunctionalRunner::run() {
  if (!launch_.kernel) throw KernelError("no kernel to run");
  GridRunner runner(launch_, cfg_, options_);
  return runner.run();
}

}  // namespace simtlm::ptx
