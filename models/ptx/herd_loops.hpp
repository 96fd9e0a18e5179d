// Natural loops of a kernel and their bounded exits, for the loop rule of the herding safety analysis
// (herd_safety.hpp, docs/ir.md "Herding safety analysis").
#pragma once

#include <cstdint>
#include <vector>

#include "models/ptx/herd_dependence.hpp"

namespace simtlm::ptx::herd {

struct Loop {
  uint32_t header = 0;            // block
  std::vector<uint8_t> body;      // one byte per block
  std::vector<uint32_t> latches;  // blocks with an edge back to the header
};

// An exit that ends its loop after a bounded number of iterations in every lane that follows it: its test
// compares a counter (one unguarded add of a constant per iteration, started from values no load feeds)
// with a loop-invariant bound, in the direction the counter moves.
struct BoundedExit {
  uint32_t branch = 0;  // the exit decision (pc)
  uint32_t test = 0;    // the setp comparing counter and bound
  uint32_t counter = kNoReg;
  // Start and bound are the same in every lane of a warp: all lanes agree on the test, so herding cannot
  // change its outcome.
  bool uniform = false;
  std::vector<uint8_t> influencers;  // per pc: in the slice of the counter's start or of the bound
};

class LoopInfo {
 public:
  explicit LoopInfo(const DependenceGraph& graph);

  const std::vector<Loop>& loops() const { return loops_; }
  // The loops whose continuation the decision at pc decides: it has a successor outside the loop or
  // returns to the header. Empty for any other pc.
  std::vector<uint32_t> controlled_by(uint32_t pc) const;
  // A decision in a cycle that forms no natural loop (an irreducible region): never rescued.
  bool in_irreducible_cycle(uint32_t pc) const;
  const std::vector<BoundedExit>& bounded_exits(uint32_t loop) const { return bounded_[loop]; }

 private:
  void find_bounded_exits(uint32_t loop);

  const DependenceGraph& graph_;
  std::vector<Loop> loops_;
  std::vector<std::vector<BoundedExit>> bounded_;
  std::vector<uint8_t> irreducible_;  // per block
};

}  // namespace simtlm::ptx::herd
