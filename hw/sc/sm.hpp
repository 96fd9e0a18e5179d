// One streaming multiprocessor: thread contexts, issue slots, a warp scheduler, a register scoreboard,
// functional-unit pipelines, CTA barriers and the load/store unit. Which threads an issue slot runs, and at
// which PC, is its DivergenceUnit's business (hw/divergence/): per-warp reconvergence stacks, thread block
// compaction or CAPRI, chosen by the configuration. The Sm has no mechanism of its own.
//
// Registers live with the CTA's warps as the program sees them ("contexts"); what the scheduler issues is an
// issue slot holding parts of one or more contexts, as the divergence unit formed it.
//
// Timing and values are split: at the cycle a slot issues, the SM asks the functional model to execute the
// instruction for each part's mask; the step it gets back (branch outcome, addresses, barrier, exit) goes to
// the divergence unit and decides what the SM does next. The SM is one SC_METHOD that runs only on cycles
// where something can happen: after each evaluation it computes the earliest cycle a slot could issue and
// sleeps until then, or until a memory response wakes it.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "hw/coalescer.hpp"
#include "hw/divergence/divergence_unit.hpp"
#include "hw/sc/load_store_unit.hpp"
#include "hw/sc/sm_stats.hpp"
#include "hw/sc/timing_params.hpp"
#include "hw/timing_kernel.hpp"
#include "hw/units/majority_unit.hpp"
#include "hw/warp_scheduler.hpp"
#include "hw/warp_sync_checker.hpp"
#include "hw/work/work_source.hpp"
#include "models/ptx/cta_barriers.hpp"

namespace simtlm::hw {

// The units an SM consults, owned by the caller (C++ models or Verilated twins, hw/units/select/).
struct SmUnits {
  BranchMajority* majority = nullptr;      // branch uniformity (required)
  LanePermutation* permutation = nullptr;  // compaction: home lanes (nullptr: the LanePermutationMap)
  WarpCompaction* compactor = nullptr;     // compaction: forms warps (nullptr: the C++ model)
};

class Sm : public sc_core::sc_module, private SlotHost {
 public:
  SC_HAS_PROCESS(Sm);
  Sm(sc_core::sc_module_name name, uint32_t id, const SmParams& params, const TimingKernel& kernel,
     const SmUnits& units);
  ~Sm() override;

  tlm_utils::simple_initiator_socket<LoadStoreUnit>& out() { return lsu_.out; }

  // Where the kernel's units of work come from (the Gpu's, one per kernel); set before the first launch.
  void set_work(WorkSource& work) { work_ = &work; }
  // Whether one more unit of work fits in the resources left.
  bool can_accept() const;
  // Places unit `linear_id` of the work source (a CTA of the grid, or a WPU's task partition); the SM starts
  // issuing its warps on the next cycle.
  void launch_cta(uint64_t linear_id);
  // Launch sequences: the TimingKernel was replaced by the next launch's; per-kernel state and statistics
  // start afresh.
  void next_kernel();
  // Called when a CTA completes (its resources are free again).
  std::function<void(uint32_t sm)> on_cta_done;
  // Called with the error when the kernel faults, deadlocks or exceeds a limit; the SM then stops.
  std::function<void(const std::string& message, bool kernel_fault)> on_error;
  // Written with the current cycle before each unit call, so an RTL mismatch report can name it.
  uint64_t* unit_cycle = nullptr;
  // Thread instructions issued by every SM, shared so the budget is checked at issue.
  uint64_t* grid_thread_instructions = nullptr;

  // The SM's statistics with its divergence unit's.
  SmStats stats() const;
  const LoadStoreUnit& lsu() const { return lsu_; }
  const DivergenceUnit& divergence() const { return *unit_; }
  // One line per resident warp: where it is and what it waits for (deadlock reports).
  std::string describe_warps() const;
  // Warp-synchronous hazards (hw/warp_sync_checker.hpp; units that form warps only): one per (write PC, read
  // PC) pair of every kernel so far, with its count and the first instance's description.
  std::vector<WarpSyncChecker::Hazard> warp_sync_hazards() const;
  // What the waveform shows (--trace-vcd; hw/sc/sm_waves.cpp): per issue slot the active mask and stack
  // depth (0 for an empty slot); issue_valid, high in each cycle a warp instruction issues, and the slot and
  // mask of the last issue; the load/store unit's queues and link.
  struct Wave {
    bool enabled = false;
    std::vector<uint32_t> mask, depth;
    mem::PulseBit issue_valid;
    uint32_t issued_slot = 0;
    uint32_t issued_mask = 0;
  } wave;
  // Adds the signals above to `waves`, named NAME.issue_valid, NAME.warpS.active_mask, ...
  void trace_waves(mem::Waves& waves);
  // The livelock watch (hw/sc/sm_livelock.cpp; the Gpu's check is in gpu_livelock.cpp). livelock_probe()
  // says what happened since its previous call and starts the next interval; livelock_state() appends the
  // architectural state of every resident CTA (registers, local frames, call records, barriers, shared
  // memory, issue slots) and the divergence unit's; describe_livelock() says where each warp spins.
  struct LivelockProbe {
    bool supported = true;   // the divergence unit can state its state (not task mode)
    bool all_issued = true;  // every live slot not waiting for others (barrier, compaction) issued
    bool any_issued = false;
    uint64_t changes = 0;  // grows with every store or atomic that changed a shared or global value
  };
  LivelockProbe livelock_probe();
  // The Gpu's check, called from the first evaluation at or past *livelock_due; true: the run stopped.
  uint64_t* livelock_due = nullptr;
  std::function<bool(uint64_t now)> on_livelock_check;
  void livelock_state(std::vector<uint64_t>& out) const;
  std::string describe_livelock() const;
  // Per-warp instruction trace: set to receive one line per issued warp instruction.
  std::function<void(const std::string& line)> trace;

 private:
  static constexpr uint64_t kPending = ~uint64_t{0};  // register waits for a memory response
  static constexpr uint64_t kNever = ~uint64_t{0};

  struct Context {  // one CTA warp as the program sees it: registers and when each is ready
    ptx::WarpContext ctx;
    std::vector<uint64_t> reg_ready;  // per register: cycle its value is available, or kPending
    uint64_t generation = 0;          // tells a response for an earlier CTA's warp from one for this one
  };
  struct SlotTiming {          // what the SM knows of an issue slot besides its threads
    uint64_t ready_cycle = 0;  // no issue before (branch latency, stack costs, formation)
    Stall ready_reason = Stall::branch;
    bool at_barrier = false;
    uint32_t pending_fills = 0;     // stack fills the slot waits for
    uint32_t pending_accesses = 0;  // core.switch_on_memory: accesses the slot waits for
  };
  struct Cta {
    bool live = false;
    ptx::CtaContext ctx;
    ptx::CtaBarriers barriers;
    std::vector<uint32_t> contexts;  // of each CTA warp
    uint32_t warps_left = 0;         // CTA warps with threads left
    uint64_t barriers_before = 0;    // completions counted by earlier CTAs of this entry
    uint32_t warps = 0, threads = 0, registers = 0, shared = 0;  // resources it holds
  };
  struct PendingOp {  // a load or atomic waiting for its responses, or a stack fill
    uint32_t slot = 0;
    uint64_t generation = 0;
    uint32_t remaining = 0;
    bool fill = false;
    uint8_t ndst = 0;
    std::array<uint32_t, 4> dst{};
    std::vector<std::pair<uint32_t, uint64_t>> contexts;  // (context, its generation) whose registers wait
    bool blocks = false;  // core.switch_on_memory: the slot waits for it, its registers do not
    // core.switch_on_memory: each request's address (as sent) and home lanes, the lanes of those the L1
    // answered as hits so far, and whether the unit has heard that every hit was answered.
    std::vector<std::pair<uint64_t, ptx::LaneMask>> requests;
    ptx::LaneMask hit_lanes = 0;
    bool hits_told = false;
  };
  // What one issue of a slot did, over all its parts.
  struct Issued {
    ptx::StepKind kind = ptx::StepKind::normal;
    ptx::MemAccess mem;  // addresses packed: lane k of `mem_lanes` is the k-th thread of the slot
    ptx::LaneMask mem_lanes = 0;
    std::array<uint64_t, ptx::kWarpSize>
        local_slot_lane;  // local memory: (context << 8 | lane) per packed lane
    // Per part; fixed size keeps the issue path free of allocation. Left uninitialised (this is built on
    // every issue): execute_parts() sets the entries of the slot's parts, the only ones a unit reads.
    PartMasks taken, exited;
    ptx::LaneMask call_lanes = 0;  // a call to a .func: the lanes of the first part that call
    // An indirect call: the first part's entry PC per calling lane (its context's ptx::WarpContext).
    const std::array<uint32_t, ptx::kWarpSize>* call_entry = nullptr;
    uint32_t hook_cycles = 0;  // the most any part's branch or load hook charged (herding decisions)
    std::vector<std::pair<uint32_t, ptx::WarpStep>> barrier;  // (part, its step) of each part that arrived
  };

  Context& context(const Cta& cta, uint32_t warp) { return contexts_[cta.contexts[warp]]; }
  const IssueSlot& slot(uint32_t s) const { return slots_[s]; }
  void cycle();
  void wake_at(uint64_t cycle);
  uint64_t now_cycle() const;
  void refresh_wave();
  // What decides when a slot may issue that only the slot itself changes: its own ready cycle and its
  // registers' (the later of them, and why), or kNever with the event it waits on; and its unit class.
  struct SlotReady {
    uint64_t cycle = 0;
    Stall why = Stall::no_warp;
    OpClass cls = OpClass::integer;
  };
  SlotReady slot_ready(uint32_t s) const;
  // Adds what every slot shares (the unit's next free cycle, a blocked load/store unit) to a SlotReady.
  uint64_t earliest_of(const SlotReady& r, uint64_t now, Stall* reason) const;
  // Earliest cycle slot `s` could issue given what is known now; kNever when it waits on an event.
  uint64_t earliest_issue(uint32_t s, uint64_t now, Stall* reason) const {
    return earliest_of(slot_ready(s), now, reason);
  }
  // The same from the per-slot cache, which refresh() has brought up to date (the hot path: on most cycles
  // few slots change).
  uint64_t earliest_cached(uint32_t s, uint64_t now, Stall* reason) const {
    return earliest_of(SlotReady{cache_cycle_[s], cache_why_[s], cache_cls_[s]}, now, reason);
  }
  void store(uint32_t s, const SlotReady& r) {
    cache_cycle_[s] = r.cycle;
    cache_why_[s] = r.why;
    cache_cls_[s] = r.cls;
    is_stale_[s] = 0;
  }
  void invalidate(uint32_t s) {
    if (is_stale_[s]) return;
    is_stale_[s] = 1;
    stale_.push_back(s);
  }
  void refresh();
  void invalidate_all();
  void issue(uint32_t s, uint64_t now);
  bool execute_parts(const IssueSlot& w, uint32_t pc, uint64_t now, Issued& out);
  // After part `part` of slot `w` executed `step` at `pc` (hw/sc/sm_warp_sync.cpp).
  void check_warp_sync(const IssueSlot& w, const Part& part, uint32_t pc, const ptx::WarpStep& step);
  // Shared, global and local accesses (sm_memory.cpp, with on_response, new_op and local_address).
  void memory(uint32_t s, uint32_t pc, const Issued& issued, uint64_t now);
  // Barriers (sm_barriers.cpp).
  bool arrive_at_barrier(uint32_t s, uint32_t pc, const Issued& issued, uint64_t now);  // false: failed
  bool waits_at_barrier(const Cta& cta, const IssueSlot& w) const;  // some CTA warp of its parts waits
  void release_barrier_waiters(uint32_t cta);
  void finish_cta(Cta& cta, uint64_t now);
  // Context `index` becomes the CTA's next warp: used, a new generation, no register pending.
  Context& claim_context(Cta& cta, uint32_t index);
  // The memory unit's busy cycles and each request's extra delay when the L1 is banked (core.dcache_banks).
  uint32_t bank_delays(std::vector<uint32_t>& delays) const;
  void on_response(uint64_t tag, const Answer& answer);
  // An error response to one of its requests (LoadStoreUnit::on_memory_error): a located kernel error.
  void memory_error(const OutstandingRequest& r, const std::string& status, const std::string& at);
  // A blocking access's answer: tells the unit once every request the L1 held was answered while others
  // are still outstanding (the L1 marks its hits, RequestExt).
  void note_hit(PendingOp& op, uint64_t tag, const Answer& answer);
  uint32_t new_op();  // a cleared entry of ops_ (its tag)
  uint64_t local_address(uint32_t context, uint32_t lane, uint64_t offset) const;
  std::string where(const IssueSlot& w, uint32_t pc) const;
  void fail(const std::string& message, bool kernel_fault);
  // A backward branch at pc: the contexts of the parts whose threads took it spin in the loop it closes.
  void note_loop(const IssueSlot& w, uint32_t pc, const PartMasks& taken);

  // SlotHost: what the divergence unit asks of the SM.
  void start_slot(uint32_t s, uint64_t ready_cycle, Stall reason) override;
  void stop_slot(uint32_t s) override;
  void delay_slot(uint32_t s, uint64_t cycle, Stall reason) override;
  void stack_request(uint32_t s, uint32_t pc, const MemRequest& request, bool wait) override;
  void threads_exited(uint32_t cta, uint64_t count) override;
  bool at_barrier(uint32_t s) const override { return timing_[s].at_barrier; }
  void warp_done(uint32_t cta, uint32_t warp) override;
  void check_deadlock(uint32_t cta) override;
  void unit_failed(const std::string& message) override { fail(message, false); }
  ptx::LaneMask give_tasks(uint32_t cta, uint32_t warp, ptx::LaneMask lanes) override;
  uint64_t tasks_left(uint32_t cta) const override { return work_->tasks_left(ctas_[cta].ctx.linear_id); }
  bool waits_on_accesses(uint32_t s) const override { return timing_[s].pending_accesses > 0; }

  const uint32_t id_;
  const SmParams p_;
  const TimingKernel& k_;
  BranchMajority& majority_;
  const Coalescer coalescer_;
  const uint32_t passes_;  // SIMD passes per warp instruction
  // Mutable state.
  WorkSource* work_ = nullptr;
  std::unique_ptr<DivergenceUnit> unit_;                 // owns the issue slots
  std::unique_ptr<WarpSyncChecker> warp_sync_;           // units that form warps only
  std::vector<WarpSyncChecker::Hazard> warp_sync_done_;  // earlier kernels' hazards
  const IssueSlot* const slots_;                         // its slot pool, read on every cycle
  const bool slots_share_contexts_;                      // one slot's issue can change when another may issue
  std::vector<SlotTiming> timing_;                       // per issue slot
  std::vector<Context> contexts_;
  std::vector<uint8_t> context_used_;  // context belongs to a resident CTA
  std::vector<Cta> ctas_;
  WarpScheduler scheduler_;
  std::array<uint64_t, kOpClasses> unit_free_{};  // cycle each functional unit accepts its next issue
  std::vector<PendingOp> ops_;
  std::vector<uint32_t> free_ops_;
  uint32_t resident_ctas_ = 0, resident_warps_ = 0, resident_threads_ = 0, used_registers_ = 0;
  uint32_t used_shared_ = 0;
  uint64_t last_eval_cycle_ = kNever;
  Stall last_stall_ = Stall::no_warp;
  bool last_had_warps_ = false;
  bool failed_ = false;
  std::vector<uint8_t> ready_;     // scratch, per slot
  std::vector<uint8_t> issued_;    // per slot: issued since the last livelock_probe()
  std::vector<uint32_t> loop_pc_;  // per context: the last backward branch its threads took (reports)
  int8_t unit_has_state_ = -1;     // DivergenceUnit::append_state answers (-1: not asked yet)
  // Per slot: slot_ready() as last computed, one array per field so that the issue pass reads little.
  // Invalidated wherever what it reads changes (the slot's state, its timing, its contexts' registers); a
  // unit whose slots share contexts gets no caching.
  std::vector<uint64_t> cache_cycle_;
  std::vector<Stall> cache_why_;
  std::vector<OpClass> cache_cls_;
  std::vector<uint8_t> is_stale_;
  std::vector<uint32_t> stale_;             // slots to look at again before the next pass
  std::vector<CoalescedRequest> requests_;  // scratch
  std::vector<uint32_t> bank_delay_;        // scratch
  std::vector<uint8_t> byte_enables_;       // scratch: a store request's
  std::vector<mem::AtomicTarget> atomics_;  // scratch
  SmStats stats_;
  sc_core::sc_event wake_;
  LoadStoreUnit lsu_;
};

}  // namespace simtlm::hw
