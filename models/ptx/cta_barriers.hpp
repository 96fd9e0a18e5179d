// The named barriers of one CTA (bar.sync, bar.arrive, bar.red), shared by the functional runner and the
// timing model so both release warps at the same moment of the program and write the same bar.red results.
//
// A barrier id completes when the threads that arrived (counted by lane) reach the count operand or, without
// one, every thread of the CTA that has not exited. bar.arrive does not block. bar.red blocks like bar.sync;
// its result, computed over the arriving threads, is written into each waiting warp when the barrier
// completes.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "models/ptx/functional.hpp"

namespace simtlm::ptx {

class CtaBarriers {
 public:
  static constexpr uint32_t kIds = 16;

  // A new CTA of `warps` warps and `live_threads` threads.
  void reset(uint32_t warps, uint64_t live_threads);
  // The lanes of step.active of `warp` (context ctx) arrive at the barrier of code[pc] = in. Returns true
  // when the warp now waits. The caller has checked step.barrier_id < kIds and that a warp already waiting
  // waits at this barrier (its new lanes join it). Completed barriers release their warps: see
  // take_released().
  bool arrive(uint32_t warp, WarpContext& ctx, const Instr& in, uint32_t pc, const WarpStep& step);
  // `threads` threads exited: they no longer hold back barriers that wait for every thread.
  void threads_exited(uint64_t threads);
  // Warps released since the last call, in release order.
  std::vector<uint32_t> take_released();

  bool waiting(uint32_t warp) const { return waiters_[warp].waiting; }
  uint32_t wait_barrier(uint32_t warp) const { return waiters_[warp].id; }
  uint32_t wait_pc(uint32_t warp) const { return waiters_[warp].pc; }
  LaneMask wait_lanes(uint32_t warp) const { return waiters_[warp].lanes; }
  uint64_t live_threads() const { return live_threads_; }
  uint32_t arrived(uint32_t id) const { return barriers_[id].arrived; }
  // Threads barrier `id` waits for.
  uint64_t expected(uint32_t id) const;
  uint64_t completions() const { return completions_; }

 private:
  struct Barrier {
    uint32_t arrived = 0;   // threads
    uint32_t expected = 0;  // count operand; 0 = every thread of the CTA that has not exited
    uint32_t popc = 0;      // bar.red over the arriving threads
    bool all = true;
    bool any = false;
  };
  struct Waiter {
    bool waiting = false;
    uint32_t id = 0;
    uint32_t pc = 0;
    LaneMask lanes = 0;
    WarpContext* ctx = nullptr;
    const Instr* instr = nullptr;
  };

  bool complete(const Barrier& b) const {
    return b.arrived > 0 && b.arrived >= (b.expected ? b.expected : live_threads_);
  }
  void release(uint32_t id);

  std::array<Barrier, kIds> barriers_{};
  std::vector<Waiter> waiters_;
  std::vector<uint32_t> released_;
  uint64_t live_threads_ = 0;
  uint64_t completions_ = 0;
};

}  // namespace simtlm::ptx
