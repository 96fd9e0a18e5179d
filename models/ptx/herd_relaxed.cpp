#include "models/ptx/herd_relaxed.hpp"

#include <algorithm>

namespace simtlm::ptx::herd {
namespace {

constexpr uint64_t kSpecialSource = uint64_t{1} << 56;
constexpr uint64_t kParamSource = uint64_t{2} << 56;
constexpr uint64_t kMemorySource = uint64_t{3} << 56;

uint64_t param_source(uint32_t sym, uint64_t offset) {
  return kParamSource | (uint64_t{sym} << 24) | (offset & 0xFFFFFF);
}

// Results that come from memory (or from a callee, which may read it): one source for all of them, so two
// loads of one address are never taken for independent values.
bool yields_memory(const Instr& in) {
  return (in.op == Op::ld && in.space != Space::param) || in.op == Op::atom || in.op == Op::call;
}

bool intersects(const std::set<uint64_t>& a, const std::set<uint64_t>& b) {
  auto i = a.begin();
  auto j = b.begin();
  while (i != a.end() && j != b.end()) {
    if (*i == *j) return true;
    if (*i < *j) {
      ++i;
    } else {
      ++j;
    }
  }
  return false;
}

}  // namespace

const std::set<uint64_t>& RelaxedRule::roots(uint32_t pc, uint32_t reg) {
  const auto key = std::make_pair(pc, reg);
  if (auto it = roots_.find(key); it != roots_.end()) return it->second;
  std::set<uint64_t> out;
  std::vector<uint8_t> seen(graph_.size(), 0);
  std::vector<uint32_t> work;
  if (const RegRead* read = graph_.read_of(pc, reg)) work = read->defs;
  while (!work.empty()) {
    const uint32_t def = work.back();
    work.pop_back();
    if (def >= graph_.size() || seen[def]) continue;
    seen[def] = 1;
    const Instr& in = graph_.kernel().code[def];
    if (yields_memory(in)) {
      out.insert(kMemorySource);
      continue;
    }
    if (in.op == Op::ld) {  // .param
      const Operand& address = in.src[0];
      out.insert(address.reg == kNoReg ? param_source(address.sym, address.imm) : kMemorySource);
      continue;
    }
    for (uint32_t i = 0; i < in.nsrc; ++i) {
      const Operand& source = in.src[i];
      if (source.kind == OperandKind::special) out.insert(kSpecialSource | uint64_t(source.sreg));
      if (source.kind == OperandKind::sym_addr) out.insert(param_source(source.sym, source.imm));
    }
    for (const RegRead& read : graph_.reads(def)) work.insert(work.end(), read.defs.begin(), read.defs.end());
  }
  return roots_.emplace(key, std::move(out)).first->second;
}

const std::vector<uint8_t>& RelaxedRule::predicate_slice(uint32_t pc) {
  if (auto it = predicate_slices_.find(pc); it != predicate_slices_.end()) return it->second;
  std::vector<uint32_t> seeds;
  if (const RegRead* read = graph_.read_of(pc, graph_.kernel().code[pc].guard))
    graph_.add_value_sources(*read, seeds);
  return predicate_slices_.emplace(pc, backward_slice(graph_, seeds)).first->second;
}

std::vector<uint32_t> RelaxedRule::deciders(uint32_t pc) const {
  std::vector<uint32_t> out;
  const auto& code = graph_.kernel().code;
  if (code[pc].guard != kNoReg) out.push_back(pc);
  std::vector<uint8_t> seen(graph_.size(), 0);
  std::vector<uint32_t> work = graph_.control_parents(pc);
  while (!work.empty()) {
    const uint32_t parent = work.back();
    work.pop_back();
    if (parent >= graph_.size() || seen[parent]) continue;
    seen[parent] = 1;
    if (code[parent].guard != kNoReg) out.push_back(parent);
    const auto& next = graph_.control_parents(parent);
    work.insert(work.end(), next.begin(), next.end());
  }
  return out;
}

const RelaxedRule::Operation& RelaxedRule::operation(uint32_t pc, uint32_t operand_reg) {
  const auto key = std::make_pair(pc, operand_reg);
  if (auto it = operations_.find(key); it != operations_.end()) return it->second;
  Operation op;
  std::vector<uint32_t> seeds;
  if (const RegRead* read = graph_.read_of(pc, operand_reg)) graph_.add_value_sources(*read, seeds);
  op.operand_slice = backward_slice(graph_, seeds);
  const std::set<uint64_t> operand_roots = roots(pc, operand_reg);
  for (uint32_t decider : deciders(pc)) {
    if (!intersects(roots(decider, graph_.kernel().code[decider].guard), operand_roots)) continue;
    op.checks.push_back(&predicate_slice(decider));
    op.check_pcs.push_back(decider);
  }
  return operations_.emplace(key, std::move(op)).first->second;
}

bool RelaxedRule::admits(uint32_t site, uint32_t pc, uint32_t operand_reg) {
  if (site >= graph_.size() || pc >= graph_.size() || operand_reg == kNoReg) return false;
  const Operation& op = operation(pc, operand_reg);
  if (op.operand_slice[site]) return false;
  for (size_t i = 0; i < op.checks.size(); ++i) {
    if (op.check_pcs[i] == site || (*op.checks[i])[site]) return false;
  }
  return true;
}

}  // namespace simtlm::ptx::herd
