// Basic blocks, successor/predecessor lists and immediate post-dominators (Cooper, Harvey and Kennedy's
// iterative dominator algorithm run on the reverse CFG, rooted at the virtual exit block).
//
// Blocks that cannot reach the virtual exit (infinite loops, code that spins forever) would have no
// post-dominator. We repeatedly pick the highest-numbered such block (usually the latch of the infinite
// loop, the last block in code order) and give it a virtual edge to the exit, until every block reaches it.
// Only one block per endless region gets the edge, so branches inside the region still reconverge at their
// natural join; the region itself is post-dominated by the virtual exit. The virtual edges are used for the
// post-dominator computation only and do not appear in BasicBlock::succ / pred.
#include "models/ptx/cfg.hpp"

#include <algorithm>

namespace simtlm::ptx {
namespace {

bool ends_block(const Instr& in) {
  return in.op == Op::bra || in.op == Op::ret || in.op == Op::exit || in.op == Op::trap;
}

bool is_exit_op(Op op) {
  return op == Op::ret || op == Op::exit || op == Op::trap;
}

void add_edge(std::vector<BasicBlock>& blocks, uint32_t from, uint32_t to) {
  auto& succ = blocks[from].succ;
  if (std::find(succ.begin(), succ.end(), to) != succ.end()) return;
  succ.push_back(to);
  blocks[to].pred.push_back(from);
}

// Marks every block from which the virtual exit is reachable (a search backwards over predecessors).
std::vector<uint8_t> reaches_exit(const std::vector<BasicBlock>& blocks,
                                  const std::vector<std::vector<uint32_t>>& extra_pred, uint32_t exit) {
  std::vector<uint8_t> seen(blocks.size(), 0);
  std::vector<uint32_t> work{exit};
  seen[exit] = 1;
  while (!work.empty()) {
    uint32_t b = work.back();
    work.pop_back();
    auto visit = [&](uint32_t p) {
      if (!seen[p]) {
        seen[p] = 1;
        work.push_back(p);
      }
    };
    for (uint32_t p : blocks[b].pred) visit(p);
    for (uint32_t p : extra_pred[b]) visit(p);
  }
  return seen;
}

}  // namespace

Cfg::Cfg(const Function& fn) : fn_(fn) {
  const auto n = static_cast<uint32_t>(fn.code.size());
  auto target_of = [n](const Instr& in) { return in.target < n ? in.target : n; };

  // Leaders.
  std::vector<uint8_t> leader(n + 1, 0);
  if (n > 0) leader[0] = 1;
  for (uint32_t pc = 0; pc < n; ++pc) {
    const Instr& in = fn.code[pc];
    if (in.op == Op::bra) leader[target_of(in)] = 1;
    if (ends_block(in)) leader[pc + 1] = 1;
  }

  // Blocks; block_of_ has one extra slot so that pc == code.size() maps to the virtual exit.
  block_of_.assign(n + 1, 0);
  for (uint32_t pc = 0; pc < n; ++pc) {
    if (leader[pc]) blocks_.push_back(BasicBlock{pc, pc, {}, {}});
    blocks_.back().last = pc;
    block_of_[pc] = static_cast<uint32_t>(blocks_.size() - 1);
  }
  exit_block_ = static_cast<uint32_t>(blocks_.size());
  blocks_.push_back(BasicBlock{n, n, {}, {}});
  block_of_[n] = exit_block_;

  // Edges. Falling off the end of the code goes to the virtual exit.
  for (uint32_t b = 0; b < exit_block_; ++b) {
    const Instr& in = fn.code[blocks_[b].last];
    const uint32_t fallthrough = block_of_[blocks_[b].last + 1];
    const bool guarded = in.guard != kNoReg;
    if (in.op == Op::bra) {
      add_edge(blocks_, b, block_of_[target_of(in)]);
      if (guarded) add_edge(blocks_, b, fallthrough);
    } else if (is_exit_op(in.op)) {
      add_edge(blocks_, b, exit_block_);
      if (guarded) add_edge(blocks_, b, fallthrough);
    } else {
      add_edge(blocks_, b, fallthrough);
    }
  }

  // Virtual edges from endless regions to the exit (see the file comment).
  std::vector<std::vector<uint32_t>> extra_pred(blocks_.size());
  std::vector<std::vector<uint32_t>> extra_succ(blocks_.size());
  for (;;) {
    std::vector<uint8_t> seen = reaches_exit(blocks_, extra_pred, exit_block_);
    uint32_t stuck = kNoTarget;
    for (uint32_t b = exit_block_; b-- > 0;) {
      if (!seen[b]) {
        stuck = b;
        break;
      }
    }
    if (stuck == kNoTarget) break;
    extra_pred[exit_block_].push_back(stuck);
    extra_succ[stuck].push_back(exit_block_);
  }

  // Postorder of the reverse graph from the exit: the reverse graph's successors are the predecessors.
  const auto nb = static_cast<uint32_t>(blocks_.size());
  std::vector<uint32_t> postorder;
  postorder.reserve(nb);
  {
    std::vector<uint8_t> visited(nb, 0);
    std::vector<std::pair<uint32_t, uint32_t>> stack{{exit_block_, 0}};  // block, next edge
    visited[exit_block_] = 1;
    while (!stack.empty()) {
      auto& [b, next] = stack.back();
      const auto& preds = blocks_[b].pred;
      const auto& extra = extra_pred[b];
      if (next < preds.size() + extra.size()) {
        uint32_t p = next < preds.size() ? preds[next] : extra[next - preds.size()];
        ++next;
        if (!visited[p]) {
          visited[p] = 1;
          stack.emplace_back(p, 0);
        }
      } else {
        postorder.push_back(b);
        stack.pop_back();
      }
    }
  }
  std::vector<uint32_t> order(nb, 0);  // postorder number
  for (uint32_t i = 0; i < postorder.size(); ++i) order[postorder[i]] = i;

  // Cooper-Harvey-Kennedy: iterate in reverse postorder; a node's reverse-graph predecessors are its
  // successors in the CFG.
  constexpr uint32_t kUndefined = kNoTarget;
  ipdom_.assign(nb, kUndefined);
  ipdom_[exit_block_] = exit_block_;
  auto intersect = [&](uint32_t a, uint32_t b) {
    while (a != b) {
      while (order[a] < order[b]) a = ipdom_[a];
      while (order[b] < order[a]) b = ipdom_[b];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (auto it = postorder.rbegin(); it != postorder.rend(); ++it) {
      const uint32_t b = *it;
      if (b == exit_block_) continue;
      uint32_t new_ipdom = kUndefined;
      auto consider = [&](uint32_t s) {
        if (ipdom_[s] == kUndefined) return;
        new_ipdom = new_ipdom == kUndefined ? s : intersect(s, new_ipdom);
      };
      for (uint32_t s : blocks_[b].succ) consider(s);
      for (uint32_t s : extra_succ[b]) consider(s);
      if (new_ipdom != ipdom_[b]) {
        ipdom_[b] = new_ipdom;
        changed = true;
      }
    }
  }
}

uint32_t Cfg::reconvergence_pc(uint32_t pc) const {
  const uint32_t ipdom = ipdom_[block_of_[pc]];
  return ipdom == exit_block_ ? kNoTarget : blocks_[ipdom].first;
}

bool Cfg::is_conditional_branch(uint32_t pc) const {
  const Instr& in = fn_.code[pc];
  return in.op == Op::bra && in.guard != kNoReg && !(in.flags & kUni);
}

}  // namespace simtlm::ptx
