// One streaming multiprocessor: warp slots, a warp scheduler, a register scoreboard, functional-unit
// pipelines, the per-warp reconvergence stacks (or, under thread block compaction, one CTA-wide stack per CTA
// and warps the compactor forms), CTA barriers and the load/store unit.
//
// Registers live with the CTA's warps as the program sees them ("contexts"); what the scheduler issues is a
// warp slot holding parts of one or more contexts. Without compaction a slot holds exactly its own context
// and its SimtStack decides the mask; with compaction (sm_compaction.cpp) a slot holds the threads the
// compactor put together, each thread in its home lane.
//
// Timing and values are split: at the cycle a warp instruction issues, the SM asks the functional model to
// execute it for the mask its SimtStack chose; the step it gets back (branch outcome, addresses, barrier,
// exit) decides what the SM does next. The SM is one SC_METHOD that runs only on cycles where something can
// happen: after each evaluation it computes the earliest cycle a warp could issue and sleeps until then,
// or until a memory response wakes it.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <systemc>
#include <vector>

#include "hw/coalescer.hpp"
#include "hw/sc/load_store_unit.hpp"
#include "hw/sc/sm_stats.hpp"
#include "hw/timing_kernel.hpp"
#include "hw/sc/timing_params.hpp"
#include "hw/simt_stack.hpp"
#include "hw/units/majority_unit.hpp"
#include "hw/units/permutations.hpp"
#include "hw/units/priority_encoder_compactor.hpp"
#include "hw/warp_scheduler.hpp"
#include "models/ptx/cta_barriers.hpp"
#include "models/ptx/simt_stack.hpp"

namespace simtlm::hw {

// The units an SM consults, owned by the caller (C++ models or Verilated twins, hw/units/select/).
struct SmUnits {
  BranchMajority* majority = nullptr;      // branch uniformity (required)
  LanePermutation* permutation = nullptr;  // compaction: home lanes (nullptr: the LanePermutationMap)
  WarpCompaction* compactor = nullptr;     // compaction: forms warps (nullptr: the C++ model)
};

class Sm : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Sm);
  Sm(sc_core::sc_module_name name, uint32_t id, const SmParams& params, const TimingKernel& kernel,
     const SmUnits& units);

  tlm_utils::simple_initiator_socket<LoadStoreUnit>& out() { return lsu_.out; }

  // Whether a CTA of the kernel fits in the resources left.
  bool can_accept() const;
  // Places CTA `linear_id` of the grid; the SM starts issuing its warps on the next cycle.
  void launch_cta(uint64_t linear_id);
  // Launch sequences: the TimingKernel was replaced by the next launch's; per-kernel state and statistics
  // start afresh (hw/sc/sm_next_kernel.cpp).
  void next_kernel();
  // Called when a CTA completes (its resources are free again).
  std::function<void(uint32_t sm)> on_cta_done;
  // Called with the error when the kernel faults, deadlocks or exceeds a limit; the SM then stops.
  std::function<void(const std::string& message, bool kernel_fault)> on_error;
  // Written with the current cycle before each unit call, so an RTL mismatch report can name it.
  uint64_t* unit_cycle = nullptr;
  // Thread instructions issued by every SM, shared so the budget is checked at issue.
  uint64_t* grid_thread_instructions = nullptr;

  const SmStats& stats() const { return stats_; }
  const LoadStoreUnit& lsu() const { return lsu_; }
  // One line per resident warp: where it is and what it waits for (deadlock reports).
  std::string describe_warps() const;
  // What the waveform shows (--trace-vcd traces these variables): per warp slot the active mask and stack
  // depth (0 for an empty slot), and the slot and mask of the last issue.
  struct Wave {
    std::vector<uint32_t> mask, depth;
    uint32_t issued_slot = 0;
    uint32_t issued_mask = 0;
  } wave;
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
  struct Part {         // threads of one CTA warp that a slot runs
    uint32_t warp = 0;  // index in the CTA
    ptx::LaneMask mask = 0;
  };
  struct Warp {  // an issue slot
    bool live = false;
    uint32_t cta = 0;
    std::vector<Part> parts;
    std::unique_ptr<SimtStack> stack;  // without compaction
    uint32_t pc = 0;                   // with compaction (the CTA stack's path)
    bool at_sync = false;              // with compaction: waits for its CTA at a branch or reconvergence
    std::array<ptx::LaneMask, ptx::kWarpSize>
        sync_taken{};                         // per part: taken lanes of the branch it waits at
    std::map<uint32_t, uint32_t> executions;  // CAPRI: per branch PC, executions since the CTA last resolved
    // CAPRI: after a branch that skips the CTA-wide synchronization, the warp runs on its own stack (over the
    // positions of `threads`) until it reconverges at free_until.
    bool free = false;
    uint32_t free_until = ptx::kNoTarget;
    ptx::SimtStack local;
    std::vector<std::pair<uint32_t, uint32_t>> threads;  // free mode: position -> (CTA warp, lane)
    uint64_t ready_cycle = 0;                            // no issue before (branch latency, stack costs)
    Stall ready_reason = Stall::branch;
    bool at_barrier = false;
    uint32_t pending_fills = 0;  // stack fills the warp waits for (no preset)
    uint32_t previous_pc = ptx::kNoTarget;
    uint64_t generation = 0;
  };
  // A conditional branch's outcome over a CTA, per CTA warp: threads that take it and threads that fall
  // through.
  struct CtaOutcome {
    std::vector<ptx::LaneMask> taken, not_taken;
    explicit CtaOutcome(uint32_t warps = 0) : taken(warps, 0), not_taken(warps, 0) {}
    // Adds the outcome of a slot's parts (taken lanes per part).
    void add(const std::vector<Part>& parts, const std::array<ptx::LaneMask, ptx::kWarpSize>& taken_by_part);
    bool diverged() const;  // threads on both paths
  };
  struct CtaEntry {  // the CTA-wide post-dominator stack of thread block compaction
    uint32_t pc = 0;
    uint32_t reconvergence_pc = ptx::kNoTarget;
    std::vector<ptx::LaneMask> mask;  // per CTA warp
  };
  struct Cta {
    bool live = false;
    ptx::CtaContext ctx;
    ptx::CtaBarriers barriers;
    std::vector<uint32_t> slots;   // context (and initial slot) of each CTA warp
    uint32_t live_warps = 0;       // slots in use
    uint64_t barriers_before = 0;  // completions counted by earlier CTAs of this slot
    // Compaction.
    std::vector<CtaEntry> stack;
    uint32_t at_sync = 0;
    bool sync_at_branch = false;
    uint32_t sync_pc = 0;
    struct CapriRound {  // CAPRI: outcomes of skipped executions of one branch, one per warp
      CtaOutcome outcome;
      std::vector<uint32_t> slots;  // warp slots that recorded one
    };
    std::map<uint32_t, CapriRound> capri_rounds;  // by branch PC
  };
  struct PendingOp {  // a load or atomic waiting for its responses, or a stack fill
    uint32_t slot = 0;
    uint64_t generation = 0;
    uint32_t remaining = 0;
    bool fill = false;
    uint8_t ndst = 0;
    std::array<uint32_t, 4> dst{};
    std::vector<std::pair<uint32_t, uint64_t>> contexts;  // (context, its generation) whose registers wait
  };
  // What one issue of a slot did, over all its parts.
  struct Issued {
    ptx::StepKind kind = ptx::StepKind::normal;
    ptx::MemAccess mem;  // addresses packed: lane k of `mem_lanes` is the k-th thread of the slot
    ptx::LaneMask mem_lanes = 0;
    std::array<uint64_t, ptx::kWarpSize>
        local_slot_lane{};  // local memory: (context << 8 | lane) per packed lane
    // Per part (a slot has at most 32 threads, so at most 32 parts); fixed size keeps the issue path free
    // of allocation.
    std::array<ptx::LaneMask, ptx::kWarpSize> taken{}, exited{};
    ptx::LaneMask call_lanes = 0;  // a call to a .func without compaction: the lanes that call
    std::vector<std::pair<uint32_t, ptx::WarpStep>> barrier;  // (part, its step) of each part that arrived
  };

  bool compacting() const { return p_.compaction != Compaction::none; }
  Context& context(const Cta& cta, uint32_t warp) { return contexts_[cta.slots[warp]]; }
  uint32_t warp_pc(const Warp& w) const {
    return !compacting() ? w.stack->pc() : w.free ? w.local.top().pc : w.pc;
  }
  ptx::LaneMask lanes_of(const Warp& w) const;  // threads in the slot (packed count = popcount)
  void cycle();
  void wake_at(uint64_t cycle);
  uint64_t now_cycle() const;
  // Earliest cycle warp `slot` could issue given what is known now; kNever when it waits on an event.
  uint64_t earliest_issue(uint32_t slot, uint64_t now, Stall* reason) const;
  void issue(uint32_t slot, uint64_t now);
  bool execute_parts(Warp& w, uint32_t pc, uint64_t now, Issued& out);
  void apply_stack(Warp& w, const StackUpdate& u, uint64_t now, uint32_t slot, uint32_t pc);
  // The stack update after a non-branch instruction: a call to a .func enters it, anything else advances.
  StackUpdate advance_or_call(Warp& w, uint32_t pc, ptx::LaneMask lanes);
  // Refuses kernels with .func calls under compaction (the CTA-wide stack has no call frames yet).
  // The refusal of the kernel's first .func call when compaction is on (the CTA-wide stack has no call
  // frames); empty otherwise. Checked once per kernel: at construction and in next_kernel().
  std::string calls_refused_under_compaction() const;
  bool is_device_call(uint32_t pc) const;
  std::string call_refusal(uint32_t pc) const;
  // Shared, global and local accesses (sm_memory.cpp, with on_response, new_op and local_address).
  void memory(Warp& w, uint32_t slot, uint32_t pc, const Issued& issued, uint64_t now);
  void exit_lanes(Warp& w, uint32_t slot, ptx::LaneMask lanes, uint32_t next_pc, uint64_t now);
  // Compaction (sm_compaction.cpp).
  void launch_compacted(Cta& cta, uint64_t now);
  void compacted_branch(Warp& w, uint32_t slot, uint32_t pc, const Issued& issued, uint64_t now);
  void compacted_exit(Warp& w, uint32_t slot, const Issued& issued, uint32_t pc, uint64_t now);
  void compacted_advance(Warp& w, uint32_t slot, uint32_t next_pc, uint64_t now);
  void compacted_check(Cta& cta, uint64_t now);
  void compacted_resolve(Cta& cta, uint64_t now);
  void compacted_continue(Cta& cta, uint32_t pc, uint64_t now);
  void compacted_form(Cta& cta, uint64_t now);
  std::vector<std::vector<Part>> form_warps(const std::vector<ptx::LaneMask>& mask);
  // CAPRI: true when the warp's execution of the branch at pc does not synchronize the CTA.
  bool capri_skips(Cta& cta, Warp& w, uint32_t slot, uint32_t pc, const Issued& issued);
  void capri_train(uint32_t pc, bool adequate);
  void free_branch(Warp& w, uint32_t slot, uint32_t pc,
                   const std::array<ptx::LaneMask, ptx::kWarpSize>& taken, uint64_t now);
  // CAPRI: the warp runs the branch at pc and its region on a stack of its own (free mode).
  void go_free(Warp& w, uint32_t slot, uint32_t pc, const std::array<ptx::LaneMask, ptx::kWarpSize>& taken,
               uint64_t now);
  bool capri_unblock(Cta& cta, uint64_t now);  // true when it resolved the CTA or released waiting warps
  void free_exit(Warp& w, uint32_t slot, ptx::LaneMask positions, uint32_t pc, uint64_t now);
  void threads_exit(Warp& w, uint32_t slot, const std::vector<Part>& gone, uint64_t now);
  void free_settle(Warp& w, uint32_t slot, uint64_t now);
  bool count_paths(uint32_t pc, const CtaOutcome& o);  // true when compaction saved a warp on a path
  // True when the outcome diverged and compaction forms fewer warps for one of its paths.
  bool compaction_pays(const CtaOutcome& o);
  void finish_cta(Cta& cta, uint64_t now);
  void settle(Warp& w, uint32_t slot, uint64_t now);  // implicit exit past the last instruction
  // Barriers (sm_barriers.cpp).
  bool arrive_at_barrier(Warp& w, uint32_t pc, const Issued& issued, uint64_t now);  // false: the run failed
  bool waits_at_barrier(const Cta& cta, const Warp& w) const;  // some CTA warp of its parts still waits
  void release_barrier_waiters(Cta& cta);
  void check_cta_deadlock(Cta& cta);
  void finish_warp(uint32_t slot, uint64_t now);
  void on_response(uint64_t tag);
  uint32_t new_op(const PendingOp& op);
  uint64_t local_address(uint32_t slot, uint32_t lane, uint64_t offset) const;
  std::string where(const Warp& w, uint32_t pc) const;
  void fail(const std::string& message, bool kernel_fault);

  const uint32_t id_;
  const SmParams p_;
  const TimingKernel& k_;
  BranchMajority& majority_;
  const SmUnits units_;
  std::unique_ptr<LanePermutationMap> permutation_;  // compaction: home lanes
  std::vector<uint8_t> capri_counter_;               // CAPRI: 2-bit compaction-adequacy counter per PC
  std::vector<uint32_t> capri_skipped_;              // CAPRI: CTA executions skipped since the last training
  const Coalescer coalescer_;
  const uint32_t passes_;  // SIMD passes per warp instruction
  // Mutable state.
  std::vector<Warp> warps_;
  std::vector<Context> contexts_;
  std::vector<uint8_t> slot_used_;  // slot (and context) belongs to a resident CTA
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
  int last_issued_slot_ = -1;
  bool failed_ = false;
  std::vector<uint8_t> ready_;  // scratch, per slot
  // Per slot, this cycle's earliest_issue() and its reason, reused to plan the next wake-up.
  static constexpr uint64_t kRecompute = kNever - 1;
  std::vector<uint64_t> earliest_;
  std::vector<Stall> earliest_why_;
  bool others_changed_ = false;             // an issue changed warps other than the one issued
  std::vector<CoalescedRequest> requests_;  // scratch
  std::vector<mem::AtomicTarget> atomics_;  // scratch
  SmStats stats_;
  sc_core::sc_event wake_;
  LoadStoreUnit lsu_;
};

}  // namespace simtlm::hw
