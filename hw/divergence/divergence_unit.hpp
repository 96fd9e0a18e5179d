// The seam between the SM and its divergence mechanism (docs/architecture.md, "Divergence units"). The SM
// owns thread contexts (a CTA warp's registers), the scheduler, the pipelines, memory and barriers; a
// DivergenceUnit owns the issue slots: which threads of which CTA warps a slot runs and at which PC. The SM
// asks it for that before an issue and hands it the branch, exit and barrier outcomes after; the unit answers
// through a SlotHost (stall cycles, spill and fill requests, slots to start or stop, threads that left). It
// is plain C++: unit tests drive every implementation without SystemC
// (testbenches/unit/test_divergence*.cpp).
//
// Implementations (make_divergence_unit): per-warp reconvergence stacks of either discipline with the spill
// engine (WarpStacks), thread block compaction with a CTA-wide stack and the priority-encoder compactor or
// ideal packing (BlockCompaction), and CAPRI on top of it (CapriCompaction).
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/stats.hpp"
#include "hw/divergence/divergence_params.hpp"
#include "hw/divergence/divergence_stats.hpp"
#include "hw/divergence/mechanism.hpp"
#include "hw/spill_engine.hpp"
#include "hw/stack_params.hpp"
#include "hw/stall.hpp"
#include "hw/timing_kernel.hpp"
#include "hw/units/lane_permutation.hpp"
#include "hw/units/permutations.hpp"
#include "hw/units/priority_encoder_compactor.hpp"
#include "hw/work/work_source.hpp"

namespace simtlm::hw {

// Threads of one CTA warp that a slot runs, each in its home lane.
struct Part {
  uint32_t warp = 0;  // index in the CTA
  ptx::LaneMask mask = 0;
};
// The slot's threads counted from lane 0: the lanes a warp made of these parts fills when packed.
inline ptx::LaneMask packed_lanes(const std::vector<Part>& parts) {
  uint32_t n = 0;
  for (const Part& p : parts) n += static_cast<uint32_t>(std::popcount(p.mask));
  return n >= 32 ? ~ptx::LaneMask{0} : (ptx::LaneMask{1} << n) - 1;
}
// What the branch unit, the trace and the waveform see of a slot: its lanes as issued, and the entries of the
// stack it runs on.
struct SlotView {
  ptx::LaneMask lanes = 0;
  uint32_t depth = 0;
};

// One mask per part of a slot (a slot has at most 32 threads, so at most 32 parts).
using PartMasks = std::array<ptx::LaneMask, ptx::kWarpSize>;

// What the SM reads of an issue slot on every cycle; the unit writes it.
struct IssueSlot {
  bool live = false;   // holds threads that issue
  bool waits = false;  // waits for the rest of its CTA (compaction synchronization)
  uint32_t cta = 0;    // the SM's CTA index
  uint32_t pc = 0;     // the next instruction
  std::vector<Part> parts;
  uint64_t generation = 0;  // grows when the slot starts afresh: tells a late response from a current one
};

// An event of a slot's memory accesses, from the SM (core.switch_on_memory).
struct MemoryEvent {
  enum class Kind : uint8_t {
    hits_answered,  // every request of an access that the L1 held was answered, and some it did not are not
    accesses_done,  // the last outstanding access of the slot was answered
  };
  Kind kind = Kind::accesses_done;
  ptx::LaneMask hit_lanes = 0;  // hits_answered: the home lanes of the requests the L1 held
};

// The SM's side of the seam.
class SlotHost {
 public:
  virtual ~SlotHost() = default;
  // The slot issues from `ready_cycle` on (the scheduler takes it; it waits at no barrier).
  virtual void start_slot(uint32_t slot, uint64_t ready_cycle, Stall reason) = 0;
  virtual void stop_slot(uint32_t slot) = 0;  // the scheduler drops it
  // No issue of the slot before `cycle` (the later of this and what holds it already).
  virtual void delay_slot(uint32_t slot, uint64_t cycle, Stall reason) = 0;
  // A spill (write) or fill (read) of the slot's stack; `wait`: the slot issues nothing until it completes.
  virtual void stack_request(uint32_t slot, uint32_t pc, const MemRequest& request, bool wait) = 0;
  // Threads of the CTA exited: barrier counts drop, waiters may go on.
  virtual void threads_exited(uint32_t cta, uint64_t count) = 0;
  virtual bool at_barrier(uint32_t slot) const = 0;
  // The CTA warp's threads are all done: its context is free. The last one ends the CTA, and the SM may then
  // launch the next CTA of the grid at once, re-entering launch_cta() with the same CTA index, slots and
  // contexts: a unit finishes updating its own state before the call and touches no CTA or slot it held
  // afterwards (it may check whether its CTA record is live again).
  virtual void warp_done(uint32_t cta, uint32_t warp) = 0;
  // Every live slot of the CTA waits: fails the kernel when it waits at a barrier that cannot complete.
  virtual void check_deadlock(uint32_t cta) = 0;
  // A unit (an RTL twin under --rtl-check) disagreed; the run stops with the message.
  virtual void unit_failed(const std::string& message) = 0;
  // A task partition's unit of work (hw/work/work_source.hpp): its tasks not given to a lane yet, and the
  // lowest lanes of `lanes` of the CTA warp (a hardware context) start its next tasks in lane order
  // (neighbouring tasks on adjacent lanes) with fresh registers; returns those lanes (none for a grid CTA).
  virtual uint64_t tasks_left(uint32_t cta) const = 0;
  virtual ptx::LaneMask give_tasks(uint32_t cta, uint32_t warp, ptx::LaneMask lanes) = 0;
  // core.switch_on_memory: whether the slot still waits for accesses it issued (the unit hears of their end
  // through DivergenceUnit::memory_event).
  virtual bool waits_on_accesses(uint32_t /*slot*/) const { return false; }
};

// Units a compacting mechanism consults, owned by the caller (C++ models or Verilated twins).
struct CompactionUnits {
  LanePermutation* permutation = nullptr;  // nullptr: the LanePermutationMap of the parameters
  WarpCompaction* compactor = nullptr;     // nullptr: the C++ model
};

class DivergenceUnit {
 public:
  DivergenceUnit(const DivergenceParams& params, const TimingKernel& kernel, SlotHost& host, uint32_t slots)
      : p_(params), k_(kernel), host_(host), slots_(slots) {}
  virtual ~DivergenceUnit() = default;
  DivergenceUnit(const DivergenceUnit&) = delete;
  DivergenceUnit& operator=(const DivergenceUnit&) = delete;

  // The issue slots: sized at construction and never again, so the SM may keep the span.
  std::span<const IssueSlot> slots() const { return slots_; }
  const DivergenceStats& stats() const { return stats_; }

  // Why the unit cannot run the kernel (empty: it can). Checked once per kernel.
  virtual std::string refusal() const { return {}; }
  // The next kernel of a launch sequence: statistics and per-kernel state start afresh.
  virtual void next_kernel() { stats_ = DivergenceStats{}; }
  // Whether one slot's issue can change when another slot may issue (they share CTA warps' registers): the SM
  // then looks at every slot again after each issue, so such a unit need not say which slots it changed.
  virtual bool slots_share_contexts() const { return false; }

  // CTA `cta` of the SM (number `linear_id` of the grid) starts with `valid` threads per CTA warp, whose
  // contexts are `contexts`.
  virtual void launch_cta(uint32_t cta, uint64_t linear_id, const std::vector<uint32_t>& contexts,
                          const std::vector<ptx::LaneMask>& valid, uint64_t now) = 0;
  // Before the slot's instruction at pc executes (the token discipline's SSY points).
  virtual void before_issue(uint32_t /*slot*/, uint32_t /*pc*/, uint64_t /*now*/) {}
  // The slot as the branch unit, the trace and the waveform see it, and the taken lanes of a branch in the
  // positions of its view's lanes.
  virtual SlotView view(uint32_t slot) const = 0;
  virtual ptx::LaneMask taken_lanes(uint32_t slot, const PartMasks& taken) const = 0;

  // Outcomes of an issue of the instruction at pc. A branch and an exit end the SM's handling of the issue;
  // any other instruction is `executed` before the SM handles it (memory, barrier) and `completed` after.
  virtual void branch(uint32_t slot, uint32_t pc, const PartMasks& taken, uint64_t now) = 0;
  virtual void exit(uint32_t slot, uint32_t pc, const PartMasks& exited, uint64_t now) = 0;
  virtual void executed(uint32_t slot, uint32_t pc, ptx::LaneMask call_lanes, uint64_t now) = 0;
  // An indirect call at pc executed in the slot's first part: call_lanes call the functions whose entry PCs
  // entry_pcs holds per lane (ptx::WarpContext::call_entry). Units without call frames refuse kernels with
  // calls (refusal()), so only those with them override this.
  virtual void indirect_call(uint32_t slot, uint32_t pc, ptx::LaneMask call_lanes,
                             const std::array<uint32_t, ptx::kWarpSize>& /*entry_pcs*/, uint64_t now) {
    executed(slot, pc, call_lanes, now);
  }
  virtual void barrier_arrived(uint32_t /*slot*/, uint64_t /*now*/) {}
  virtual void completed(uint32_t slot, uint32_t pc, uint64_t now) = 0;
  // What the memory system did for a slot that waits on its accesses (core.switch_on_memory): the one hook
  // for memory-latency divergence (dynamic warp subdivision) and for the end of the wait. Returns whether
  // the unit may have changed its slots (the SM then looks at them again this cycle).
  virtual bool memory_event(uint32_t /*slot*/, const MemoryEvent& /*event*/, uint64_t /*now*/) {
    return false;
  }
  // The unit's own statistics, added to the run's (groups declared in divergence_stats_decls()); the SM's
  // counters of every unit (DivergenceStats) are stats() above.
  virtual void add_statistics(stats::Group& /*run*/) const {}
  // The timing model's livelock watch (hw/sc/sm_livelock.cpp): appends, as words, everything of the unit's
  // own state that decides which threads its slots run next and where (stacks, waiting slots, predictions;
  // never counters, cycles or statistics), and returns true. A unit that cannot say returns false: the SM
  // then never reports a livelock (task mode: warp_slices adapts to cycles per task).
  virtual bool append_state(std::vector<uint64_t>& /*out*/) const { return false; }

 protected:
  const DivergenceParams p_;
  const TimingKernel& k_;
  SlotHost& host_;
  std::vector<IssueSlot> slots_;
  DivergenceStats stats_;
};

// The unit params select (divergence.unit); throws std::invalid_argument for a name no unit has.
std::unique_ptr<DivergenceUnit> make_divergence_unit(const DivergenceParams& params,
                                                     const TimingKernel& kernel, SlotHost& host,
                                                     const CompactionUnits& units);
// Why the unit params select cannot run `kernel` of `module` (the refusal() of that unit, found without
// building it: `simtlm check --mode timing` reports it as `run` would), or empty. Registered units say
// nothing.
std::string divergence_unit_refusal(const DivergenceParams& params, const ptx::Module& module,
                                    const ptx::Function& kernel);
// Thread block compaction's refusal (tbc, ideal, capri): the first .func call of `kernel`, with its place.
std::string tbc_call_refusal(const ptx::Module& module, const ptx::Function& kernel);
// Where the unit's work comes from: the grid's CTAs, or a task partition per SM (WPU) of `sms`.
std::unique_ptr<WorkSource> make_work_source(const DivergenceParams& params, const TimingKernel& kernel,
                                             uint32_t sms);
// The statistics groups the units add (add_statistics), each declared once, for the run's schema.
const std::vector<const stats::GroupDecl*>& divergence_stats_decls();

}  // namespace simtlm::hw
