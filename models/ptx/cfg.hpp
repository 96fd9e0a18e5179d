// Control-flow graph of one function and the immediate post-dominator of every conditional branch.
// ret/exit/trap blocks are joined at a virtual exit block so every branch has a reconvergence point.
#pragma once

#include <cstdint>
#include <vector>

#include "models/ptx/ir.hpp"

namespace simtlm::ptx {

struct BasicBlock {
  uint32_t first = 0;  // first instruction index
  uint32_t last = 0;   // last instruction index (inclusive)
  std::vector<uint32_t> succ;
  std::vector<uint32_t> pred;
};

class Cfg {
 public:
  explicit Cfg(const Function& fn);

  const std::vector<BasicBlock>& blocks() const { return blocks_; }
  uint32_t virtual_exit() const { return exit_block_; }  // index of the virtual exit block
  uint32_t block_of(uint32_t pc) const { return block_of_[pc]; }
  uint32_t ipdom_block(uint32_t block) const { return ipdom_[block]; }
  // Reconvergence PC of the branch at pc: first instruction of its immediate post-dominator, or
  // kNoTarget when that is the virtual exit (threads then reconverge only by exiting).
  uint32_t reconvergence_pc(uint32_t pc) const;
  // True for a conditional (guarded, non-.uni) branch.
  bool is_conditional_branch(uint32_t pc) const;

 private:
  const Function& fn_;
  std::vector<BasicBlock> blocks_;
  std::vector<uint32_t> block_of_;
  std::vector<uint32_t> ipdom_;
  uint32_t exit_block_ = 0;
};

}  // namespace simtlm::ptx
