// The dependence graph behind the herding safety analysis (herd_safety.hpp): reaching definitions of every
// register read, control dependences (from the CFG's post-dominators), memory carried dependences (stores
// to loads that may read them) and forward dominators and reachability for the loop rules.
//
// A slice follows, from an instruction, the definitions its register reads reach; when several definitions
// (or none, on some path) reach one read, the value is a merge, so the decisions controlling those
// definitions join the slice too. A load also depends on the stores it may read. Decisions, stores, atomics
// and calls add the decisions that control whether they run; a plain value does not, because when it is
// the only definition reaching a read, every path to that read runs it anyway.
#pragma once

#include <cstdint>
#include <vector>

#include "models/ptx/cfg.hpp"
#include "models/ptx/ir.hpp"

namespace simtlm::ptx::herd {

// The definitions of one register that reach one read of it.
struct RegRead {
  uint32_t reg = kNoReg;
  std::vector<uint32_t> defs;    // PCs of the reaching definitions, ascending
  bool maybe_undefined = false;  // on some path from the entry (or a callee's entry) nothing defines it
};

class DependenceGraph {
 public:
  DependenceGraph(const Module& module, const Function& kernel);

  const Function& kernel() const { return kernel_; }
  const Cfg& cfg() const { return cfg_; }
  uint32_t size() const { return static_cast<uint32_t>(kernel_.code.size()); }

  // Every register pc reads (sources, address bases, vector elements, guard), each once.
  const std::vector<RegRead>& reads(uint32_t pc) const { return reads_[pc]; }
  const RegRead* read_of(uint32_t pc, uint32_t reg) const;
  // Decisions (the last instruction of a block with two successors) and calls of the .func whose linked
  // code holds pc that decide whether pc runs.
  const std::vector<uint32_t>& control_parents(uint32_t pc) const { return control_[cfg_.block_of(pc)]; }
  // Stores, atomics and reductions whose data the load or atomic at pc may read.
  const std::vector<uint32_t>& memory_sources(uint32_t pc) const { return memory_sources_[pc]; }
  // True for the last instruction of a block with two successors (a guarded bra, ret, exit or trap).
  bool is_decision(uint32_t pc) const;
  // What pc depends on when it is in a slice (see the file comment).
  std::vector<uint32_t> slice_dependences(uint32_t pc) const;
  // The definitions of a read, plus the decisions controlling them when the read is a merge.
  void add_value_sources(const RegRead& read, std::vector<uint32_t>& out) const;

  // Forward dominance of blocks (every block without predecessors, the callees' entries among them, is a
  // root) and reachability along at least one edge.
  bool dominates(uint32_t a, uint32_t b) const;
  bool reaches(uint32_t from, uint32_t to) const;
  // The linked callee (index in Function::linked_callees) whose code holds pc; kNoTarget for the kernel's.
  uint32_t region_of(uint32_t pc) const { return region_[pc]; }
  // Whether `later` may run after `earlier` in one thread; code of a callee runs where it is called.
  bool may_follow(uint32_t earlier, uint32_t later, int depth = 0) const;

 private:
  void compute_reads();
  void compute_control();
  void compute_reachability();
  void compute_dominators();
  void compute_memory(const Module& module);

  const Function& kernel_;
  Cfg cfg_;
  std::vector<uint32_t> region_;                // per pc
  std::vector<std::vector<uint32_t>> callers_;  // per linked callee: the calls of it
  std::vector<std::vector<RegRead>> reads_;
  std::vector<std::vector<uint32_t>> control_;  // per block
  std::vector<std::vector<uint32_t>> memory_sources_;
  std::vector<std::vector<uint64_t>> reach_;  // per block, a bit per block
  std::vector<uint32_t> idom_;                // per block; the virtual root is blocks().size()
  std::vector<uint32_t> dom_depth_;
};

// Marks (one byte per pc) the seeds and everything they depend on transitively.
std::vector<uint8_t> backward_slice(const DependenceGraph& graph, const std::vector<uint32_t>& seeds);

// The registers an instruction reads (guard, sources, address bases, vector elements).
std::vector<uint32_t> read_registers(const Instr& in);

// The registers an instruction writes (destinations and vector elements).
std::vector<uint32_t> written_registers(const Instr& in);

}  // namespace simtlm::ptx::herd
