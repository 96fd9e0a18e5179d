#include "models/ptx/herd_dependence.hpp"

#include <algorithm>
#include <deque>
#include <numeric>

#include "models/ptx/call_link.hpp"

namespace simtlm::ptx::herd {
namespace {

class Bits {
 public:
  explicit Bits(size_t n = 0) : words_((n + 63) / 64, 0) {}
  void set(size_t i) { words_[i / 64] |= uint64_t{1} << (i % 64); }
  void reset(size_t i) { words_[i / 64] &= ~(uint64_t{1} << (i % 64)); }
  bool test(size_t i) const { return (words_[i / 64] >> (i % 64)) & 1; }
  bool merge(const Bits& other) {
    bool grew = false;
    for (size_t w = 0; w < words_.size(); ++w) {
      const uint64_t merged = words_[w] | other.words_[w];
      grew = grew || merged != words_[w];
      words_[w] = merged;
    }
    return grew;
  }

 private:
  std::vector<uint64_t> words_;
};

void add_unique(std::vector<uint32_t>& out, uint32_t value) {
  if (std::find(out.begin(), out.end(), value) == out.end()) out.push_back(value);
}

}  // namespace

std::vector<uint32_t> read_registers(const Instr& in) {
  std::vector<uint32_t> regs;
  if (in.guard != kNoReg) add_unique(regs, in.guard);
  for (uint32_t i = 0; i < in.nsrc; ++i) {
    const Operand& op = in.src[i];
    if ((op.kind == OperandKind::reg || op.kind == OperandKind::mem) && op.reg != kNoReg)
      add_unique(regs, op.reg);
    if (op.kind == OperandKind::vec) {
      for (uint32_t e = 0; e < op.count; ++e) {
        if (op.vregs[e] != kNoReg) add_unique(regs, op.vregs[e]);
      }
    }
  }
  return regs;
}

namespace {

bool reads_memory(const Instr& in) {
  return in.op == Op::ld || in.op == Op::atom || in.op == Op::tex;  // tex reads texels of global memory
}
bool writes_memory(const Instr& in) {
  return in.op == Op::st || in.op == Op::atom || in.op == Op::red;
}

// Call-scope .params passed between a caller and a linked callee are one variable: the arguments with the
// callee's parameters, its return parameters with the caller's. A union-find over symbols.
class ParamClasses {
 public:
  explicit ParamClasses(const Module& module, const Function& kernel) : parent_(module.symbols.size()) {
    std::iota(parent_.begin(), parent_.end(), 0u);
    for (const CallSite& site : kernel.call_sites) {
      for (uint32_t linked : possible_callees(kernel, site)) {
        const LinkedCallee& callee = kernel.linked_callees[linked];
        for (size_t i = 0; i < site.args.size() && i < callee.params.size(); ++i)
          unite(site.args[i], callee.params[i]);
        for (size_t i = 0; i < site.returns.size() && i < callee.returns.size(); ++i)
          unite(site.returns[i], callee.returns[i]);
      }
    }
  }
  uint32_t find(uint32_t s) {
    while (parent_[s] != s) s = parent_[s] = parent_[parent_[s]];
    return s;
  }

 private:
  void unite(uint32_t a, uint32_t b) {
    if (a < parent_.size() && b < parent_.size()) parent_[find(a)] = find(b);
  }
  std::vector<uint32_t> parent_;
};

// Where a memory access lands, for deciding which stores a load may read.
struct MemoryPlace {
  Space space = Space::none;
  uint32_t param_class = kNoSym;  // .param accesses: the class of the symbol; kNoSym = any call-scope param
};

bool may_alias(const MemoryPlace& a, const MemoryPlace& b) {
  if (a.space == Space::param || b.space == Space::param) {
    return a.space == b.space &&
           (a.param_class == kNoSym || b.param_class == kNoSym || a.param_class == b.param_class);
  }
  if (a.space == Space::constant || b.space == Space::constant) return false;  // nothing writes .const
  return a.space == b.space || a.space == Space::generic || b.space == Space::generic;
}

}  // namespace

std::vector<uint32_t> written_registers(const Instr& in) {
  std::vector<uint32_t> regs;
  for (uint32_t d = 0; d < in.ndst; ++d) {
    const Operand& op = in.dst[d];
    if (op.kind == OperandKind::reg && op.reg != kNoReg) add_unique(regs, op.reg);
    if (op.kind == OperandKind::vec) {
      for (uint32_t e = 0; e < op.count; ++e) {
        if (op.vregs[e] != kNoReg) add_unique(regs, op.vregs[e]);
      }
    }
  }
  return regs;
}

DependenceGraph::DependenceGraph(const Module& module, const Function& kernel)
    : kernel_(kernel), cfg_(kernel) {
  region_.assign(size(), kNoTarget);
  callers_.assign(kernel.linked_callees.size(), {});
  for (uint32_t k = 0; k < kernel.linked_callees.size(); ++k) {
    const LinkedCallee& callee = kernel.linked_callees[k];
    for (uint32_t pc = callee.entry_pc; pc < callee.end_pc && pc < size(); ++pc) region_[pc] = k;
  }
  for (uint32_t pc = 0; pc < size(); ++pc) {
    const Instr& in = kernel.code[pc];
    if (in.op != Op::call || in.call_site >= kernel.call_sites.size()) continue;
    for (uint32_t linked : possible_callees(kernel, kernel.call_sites[in.call_site]))
      callers_[linked].push_back(pc);
  }
  compute_reads();
  compute_control();
  compute_reachability();
  compute_dominators();
  compute_memory(module);
}

void DependenceGraph::compute_reads() {
  const uint32_t n = size();
  const auto nregs = static_cast<uint32_t>(kernel_.regs.size());
  // Definition ids: one per (pc, register written), then one "undefined" id per register.
  std::vector<std::vector<uint32_t>> def_ids(n);
  std::vector<std::vector<uint32_t>> ids_of_reg(nregs);
  std::vector<uint32_t> def_pc;
  for (uint32_t pc = 0; pc < n; ++pc) {
    for (uint32_t r : written_registers(kernel_.code[pc])) {
      def_ids[pc].push_back(static_cast<uint32_t>(def_pc.size()));
      ids_of_reg[r].push_back(static_cast<uint32_t>(def_pc.size()));
      def_pc.push_back(pc);
    }
  }
  const auto undefined_base = static_cast<uint32_t>(def_pc.size());
  const size_t total = undefined_base + nregs;

  const auto& blocks = cfg_.blocks();
  const auto nb = static_cast<uint32_t>(blocks.size());
  auto transfer = [&](uint32_t pc, Bits& live) {
    const Instr& in = kernel_.code[pc];
    const std::vector<uint32_t> written = written_registers(in);
    for (size_t i = 0; i < written.size(); ++i) {
      const uint32_t r = written[i];
      if (in.guard == kNoReg) {  // a guarded write keeps the old value in the other lanes
        for (uint32_t id : ids_of_reg[r]) live.reset(id);
        live.reset(undefined_base + r);
      }
      live.set(def_ids[pc][i]);
    }
  };

  std::vector<Bits> in(nb, Bits(total));
  for (uint32_t b = 0; b < nb; ++b) {
    if (b != cfg_.virtual_exit() && blocks[b].pred.empty()) {
      for (uint32_t r = 0; r < nregs; ++r) in[b].set(undefined_base + r);
    }
  }
  std::deque<uint32_t> work;
  std::vector<uint8_t> queued(nb, 1);
  for (uint32_t b = 0; b < nb; ++b) work.push_back(b);
  while (!work.empty()) {
    const uint32_t b = work.front();
    work.pop_front();
    queued[b] = 0;
    if (b == cfg_.virtual_exit()) continue;
    Bits live = in[b];
    for (uint32_t pc = blocks[b].first; pc <= blocks[b].last; ++pc) transfer(pc, live);
    for (uint32_t s : blocks[b].succ) {
      if (in[s].merge(live) && !queued[s]) {
        queued[s] = 1;
        work.push_back(s);
      }
    }
  }

  reads_.assign(n, {});
  for (uint32_t b = 0; b < nb; ++b) {
    if (b == cfg_.virtual_exit()) continue;
    Bits live = in[b];
    for (uint32_t pc = blocks[b].first; pc <= blocks[b].last; ++pc) {
      for (uint32_t r : read_registers(kernel_.code[pc])) {
        RegRead read;
        read.reg = r;
        for (uint32_t id : ids_of_reg[r]) {
          if (live.test(id)) read.defs.push_back(def_pc[id]);
        }
        read.maybe_undefined = live.test(undefined_base + r);
        std::sort(read.defs.begin(), read.defs.end());
        read.defs.erase(std::unique(read.defs.begin(), read.defs.end()), read.defs.end());
        reads_[pc].push_back(std::move(read));
      }
      transfer(pc, live);
    }
  }
}

void DependenceGraph::compute_control() {
  const auto& blocks = cfg_.blocks();
  const auto nb = static_cast<uint32_t>(blocks.size());
  control_.assign(nb, {});
  for (uint32_t b = 0; b < nb; ++b) {
    if (b == cfg_.virtual_exit() || blocks[b].succ.size() < 2) continue;
    const uint32_t stop = cfg_.ipdom_block(b);
    for (uint32_t s : blocks[b].succ) {
      // Every block on the post-dominator tree path from s up to (not including) b's post-dominator runs
      // only on b's decision.
      for (uint32_t runner = s, steps = 0; runner != stop && runner < nb && steps <= nb; ++steps) {
        add_unique(control_[runner], blocks[b].last);
        if (runner == cfg_.ipdom_block(runner)) break;
        runner = cfg_.ipdom_block(runner);
      }
    }
  }
  // The code of a linked .func runs when a call of it runs.
  for (uint32_t pc = 0; pc < size(); ++pc) {
    const Instr& in = kernel_.code[pc];
    if (in.op != Op::call || in.call_site >= kernel_.call_sites.size()) continue;
    for (uint32_t linked : possible_callees(kernel_, kernel_.call_sites[in.call_site])) {
      const LinkedCallee& callee = kernel_.linked_callees[linked];
      for (uint32_t b = 0; b < nb; ++b) {
        if (b != cfg_.virtual_exit() && blocks[b].first >= callee.entry_pc && blocks[b].first < callee.end_pc)
          add_unique(control_[b], pc);
      }
    }
  }
  for (auto& parents : control_) std::sort(parents.begin(), parents.end());
}

void DependenceGraph::compute_reachability() {
  const auto& blocks = cfg_.blocks();
  const auto nb = static_cast<uint32_t>(blocks.size());
  const size_t words = (nb + 63) / 64;
  reach_.assign(nb, std::vector<uint64_t>(words, 0));
  for (uint32_t from = 0; from < nb; ++from) {
    std::vector<uint32_t> work(blocks[from].succ.begin(), blocks[from].succ.end());
    auto& seen = reach_[from];
    while (!work.empty()) {
      const uint32_t b = work.back();
      work.pop_back();
      if ((seen[b / 64] >> (b % 64)) & 1) continue;
      seen[b / 64] |= uint64_t{1} << (b % 64);
      for (uint32_t s : blocks[b].succ) work.push_back(s);
    }
  }
}

bool DependenceGraph::reaches(uint32_t from, uint32_t to) const {
  return (reach_[from][to / 64] >> (to % 64)) & 1;
}

void DependenceGraph::compute_dominators() {
  // Cooper, Harvey and Kennedy on the forward CFG below a virtual root whose successors are the blocks
  // without predecessors (the kernel's entry and each linked callee's).
  const auto& blocks = cfg_.blocks();
  const auto nb = static_cast<uint32_t>(blocks.size());
  const uint32_t root = nb;
  auto succs = [&](uint32_t b) {
    if (b != root) return blocks[b].succ;
    std::vector<uint32_t> roots;
    for (uint32_t x = 0; x < nb; ++x) {
      if (x != cfg_.virtual_exit() && blocks[x].pred.empty()) roots.push_back(x);
    }
    return roots;
  };
  std::vector<uint32_t> postorder;
  std::vector<uint8_t> visited(nb + 1, 0);
  std::vector<std::pair<uint32_t, std::vector<uint32_t>>> stack;
  stack.emplace_back(root, succs(root));
  visited[root] = 1;
  while (!stack.empty()) {
    auto& [b, next] = stack.back();
    if (!next.empty()) {
      const uint32_t s = next.back();
      next.pop_back();
      if (!visited[s]) {
        visited[s] = 1;
        stack.emplace_back(s, succs(s));
      }
    } else {
      postorder.push_back(b);
      stack.pop_back();
    }
  }
  std::vector<uint32_t> order(nb + 1, 0);
  for (uint32_t i = 0; i < postorder.size(); ++i) order[postorder[i]] = i;
  std::vector<std::vector<uint32_t>> preds(nb + 1);
  for (uint32_t b = 0; b <= nb; ++b) {
    for (uint32_t s : succs(b)) preds[s].push_back(b);
  }
  idom_.assign(nb + 1, kNoTarget);
  idom_[root] = root;
  auto intersect = [&](uint32_t a, uint32_t b) {
    while (a != b) {
      while (order[a] < order[b]) a = idom_[a];
      while (order[b] < order[a]) b = idom_[b];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (auto it = postorder.rbegin(); it != postorder.rend(); ++it) {
      const uint32_t b = *it;
      if (b == root) continue;
      uint32_t candidate = kNoTarget;
      for (uint32_t p : preds[b]) {
        if (idom_[p] == kNoTarget) continue;
        candidate = candidate == kNoTarget ? p : intersect(p, candidate);
      }
      if (candidate != idom_[b]) {
        idom_[b] = candidate;
        changed = true;
      }
    }
  }
  dom_depth_.assign(nb + 1, 0);
  for (auto it = postorder.rbegin(); it != postorder.rend(); ++it) {
    if (*it != root && idom_[*it] != kNoTarget) dom_depth_[*it] = dom_depth_[idom_[*it]] + 1;
  }
}

bool DependenceGraph::dominates(uint32_t a, uint32_t b) const {
  if (idom_[b] == kNoTarget || idom_[a] == kNoTarget) return false;
  while (dom_depth_[b] > dom_depth_[a]) b = idom_[b];
  return a == b;
}

void DependenceGraph::compute_memory(const Module& module) {
  ParamClasses classes(module, kernel_);
  std::vector<std::pair<uint32_t, MemoryPlace>> writers;
  std::vector<std::pair<uint32_t, MemoryPlace>> readers;
  for (uint32_t pc = 0; pc < size(); ++pc) {
    const Instr& in = kernel_.code[pc];
    if (!reads_memory(in) && !writes_memory(in)) continue;
    MemoryPlace place{in.space, kNoSym};
    if (in.space == Space::param) {
      const uint32_t sym = in.src[0].sym;
      if (sym != kNoSym && sym < module.symbols.size()) {
        if (!module.symbols[sym].call_scope) continue;  // a kernel parameter: the same for the whole launch
        place.param_class = classes.find(sym);
      }
    }
    if (writes_memory(in)) writers.emplace_back(pc, place);
    if (reads_memory(in)) readers.emplace_back(pc, place);
  }
  memory_sources_.assign(size(), {});
  for (const auto& [reader, read_place] : readers) {
    for (const auto& [writer, write_place] : writers) {
      if (writer == reader || !may_alias(read_place, write_place)) continue;
      if (may_follow(writer, reader)) memory_sources_[reader].push_back(writer);
    }
  }
}

bool DependenceGraph::may_follow(uint32_t earlier, uint32_t later, int depth) const {
  constexpr int kMaxCallDepth = 8;  // deeper call chains (and recursion) are assumed to allow any order
  if (depth > kMaxCallDepth) return true;
  const uint32_t earlier_region = region_[earlier];
  const uint32_t later_region = region_[later];
  if (earlier_region == later_region) {
    // Within a callee any order: it may be called again after it returns.
    if (earlier_region != kNoTarget) return true;
    const uint32_t eb = cfg_.block_of(earlier);
    const uint32_t lb = cfg_.block_of(later);
    return (eb == lb && earlier < later) || reaches(eb, lb);
  }
  // Callee code runs at its calls: compare the calls instead, the callee's side first.
  if (earlier_region != kNoTarget) {
    for (uint32_t call : callers_[earlier_region]) {
      if (call == later || may_follow(call, later, depth + 1)) return true;
    }
    return false;
  }
  for (uint32_t call : callers_[later_region]) {
    if (call == earlier || may_follow(earlier, call, depth + 1)) return true;
  }
  return false;
}

const RegRead* DependenceGraph::read_of(uint32_t pc, uint32_t reg) const {
  for (const RegRead& read : reads_[pc]) {
    if (read.reg == reg) return &read;
  }
  return nullptr;
}

bool DependenceGraph::is_decision(uint32_t pc) const {
  const BasicBlock& block = cfg_.blocks()[cfg_.block_of(pc)];
  return block.last == pc && block.succ.size() >= 2;
}

void DependenceGraph::add_value_sources(const RegRead& read, std::vector<uint32_t>& out) const {
  out.insert(out.end(), read.defs.begin(), read.defs.end());
  if (read.defs.size() + (read.maybe_undefined ? 1 : 0) > 1) {
    for (uint32_t def : read.defs) {
      const auto& parents = control_parents(def);
      out.insert(out.end(), parents.begin(), parents.end());
    }
  }
}

std::vector<uint32_t> DependenceGraph::slice_dependences(uint32_t pc) const {
  std::vector<uint32_t> out;
  for (const RegRead& read : reads_[pc]) add_value_sources(read, out);
  const auto& sources = memory_sources_[pc];
  out.insert(out.end(), sources.begin(), sources.end());
  const Instr& in = kernel_.code[pc];
  if (is_decision(pc) || writes_memory(in) || in.op == Op::call) {
    const auto& parents = control_parents(pc);
    out.insert(out.end(), parents.begin(), parents.end());
  }
  return out;
}

std::vector<uint8_t> backward_slice(const DependenceGraph& graph, const std::vector<uint32_t>& seeds) {
  std::vector<uint8_t> in_slice(graph.size(), 0);
  std::vector<uint32_t> work;
  for (uint32_t s : seeds) {
    if (s < graph.size() && !in_slice[s]) {
      in_slice[s] = 1;
      work.push_back(s);
    }
  }
  while (!work.empty()) {
    const uint32_t pc = work.back();
    work.pop_back();
    for (uint32_t dep : graph.slice_dependences(pc)) {
      if (dep < graph.size() && !in_slice[dep]) {
        in_slice[dep] = 1;
        work.push_back(dep);
      }
    }
  }
  return in_slice;
}

}  // namespace simtlm::ptx::herd
