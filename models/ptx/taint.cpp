#include "models/ptx/taint.hpp"

#include <algorithm>
#include <deque>
#include <stdexcept>
#include <string>

#include "models/ptx/cfg.hpp"

namespace simtlm::ptx {
namespace {

struct Taint {
  uint8_t sources = 0;
  uint32_t data_load_pc = kNoTarget;

  void join(const Taint& other) {
    sources |= other.sources;
    data_load_pc = std::min(data_load_pc, other.data_load_pc);
  }
  bool operator==(const Taint&) const = default;
};

// Taint of every register at one program point.
using RegTaint = std::vector<Taint>;

uint8_t special_source(SpecialReg reg) {
  switch (reg) {
    case SpecialReg::tid_x:
    case SpecialReg::tid_y:
    case SpecialReg::tid_z:
    case SpecialReg::laneid:
    case SpecialReg::lanemask_eq:
    case SpecialReg::lanemask_le:
    case SpecialReg::lanemask_lt:
    case SpecialReg::lanemask_ge:
    case SpecialReg::lanemask_gt:
      return kFromThread;
    case SpecialReg::ntid_x:
    case SpecialReg::ntid_y:
    case SpecialReg::ntid_z:
    case SpecialReg::ctaid_x:
    case SpecialReg::ctaid_y:
    case SpecialReg::ctaid_z:
    case SpecialReg::nctaid_x:
    case SpecialReg::nctaid_y:
    case SpecialReg::nctaid_z:
    case SpecialReg::gridid:
    case SpecialReg::envreg1:
    case SpecialReg::envreg2:
      return kFromCta;
    case SpecialReg::warpid:
    case SpecialReg::nwarpid:
    case SpecialReg::smid:
    case SpecialReg::nsmid:
    case SpecialReg::clock:
    case SpecialReg::clock_hi:
    case SpecialReg::clock64:
    case SpecialReg::globaltimer:
    case SpecialReg::count_:
      break;
  }
  return kFromMachine;
}

class Propagator {
 public:
  Propagator(const Module& module, const Function& fn) : module_(module), fn_(fn) {}

  // Applies instruction `pc` to `regs`.
  void step(uint32_t pc, RegTaint& regs) const {
    const Instr& in = fn_.code[pc];
    if (in.ndst == 0) return;
    Taint result;
    for (uint32_t i = 0; i < in.nsrc; ++i) result.join(operand_taint(in.src[i], regs));
    // A guarded write is a select between the old and the new value on the guard, like selp.
    if (in.guard != kNoReg) result.join(regs[in.guard]);
    // A texture fetch is a load: its texel comes from memory at an address its coordinates decide.
    if (in.op == Op::ld || in.op == Op::atom || in.op == Op::tex) result.join(loaded_value(in, pc));
    if (in.op == Op::activemask) result.sources |= kFromMachine;

    for (uint32_t d = 0; d < in.ndst; ++d) {
      const Operand& dst = in.dst[d];
      if (dst.kind == OperandKind::reg) {
        write(dst.reg, result, in.guard != kNoReg, regs);
      } else if (dst.kind == OperandKind::vec) {
        for (uint32_t e = 0; e < dst.count; ++e) {
          if (dst.vregs[e] != kNoReg) write(dst.vregs[e], result, in.guard != kNoReg, regs);
        }
      }
      // Other kinds (a call's return parameter) are memory, not registers: a later ld.param reads them.
    }
  }

 private:
  static Taint operand_taint(const Operand& op, const RegTaint& regs) {
    Taint t;
    switch (op.kind) {
      case OperandKind::reg:
        t = regs[op.reg];
        break;
      case OperandKind::mem:
        if (op.reg != kNoReg) t = regs[op.reg];
        break;
      case OperandKind::vec:
        for (uint32_t e = 0; e < op.count; ++e) {
          if (op.vregs[e] != kNoReg) t.join(regs[op.vregs[e]]);
        }
        break;
      case OperandKind::special:
        t.sources = special_source(op.sreg);
        break;
      default:  // Immediates, symbol addresses, labels and sinks carry nothing: they clear the taint.
        break;
    }
    return t;
  }

  // What the memory read by a load or atomic contributes, on top of its address.
  Taint loaded_value(const Instr& in, uint32_t pc) const {
    Taint t;
    if (in.op == Op::ld && in.space == Space::param) {
      const uint32_t sym = in.src[0].sym;
      const bool call_result = sym != kNoSym && module_.symbols[sym].call_scope;
      t.sources = call_result ? kFromMachine : kFromParam;
    } else {
      t.sources = kFromData;
      t.data_load_pc = pc;
    }
    return t;
  }

  static void write(uint32_t reg, const Taint& value, bool guarded, RegTaint& regs) {
    if (guarded) {
      regs[reg].join(value);  // Lanes whose guard is false keep the old value.
    } else {
      regs[reg] = value;
    }
  }

  const Module& module_;
  const Function& fn_;
};

}  // namespace

TaintAnalysis::TaintAnalysis(const Module& module, const Function& fn) {
  if (fn.code.empty()) return;
  const Cfg cfg(fn);
  const Propagator propagator(module, fn);
  const auto num_blocks = static_cast<uint32_t>(cfg.blocks().size());
  const RegTaint clean(fn.regs.size());

  // in[b] only grows (sources gain bits, load pcs decrease), so the worklist reaches a fixed point. A block
  // is queued when its in-state grew or it was never visited, so every reachable block is walked at least
  // once.
  std::vector<RegTaint> in(num_blocks, clean);
  std::vector<uint8_t> visited(num_blocks, 0);
  std::vector<uint8_t> queued(num_blocks, 0);
  std::deque<uint32_t> work{cfg.block_of(0)};
  queued[work.front()] = 1;
  while (!work.empty()) {
    const uint32_t b = work.front();
    work.pop_front();
    queued[b] = 0;
    visited[b] = 1;
    if (b == cfg.virtual_exit()) continue;
    RegTaint regs = in[b];
    for (uint32_t pc = cfg.blocks()[b].first; pc <= cfg.blocks()[b].last; ++pc) propagator.step(pc, regs);
    for (uint32_t s : cfg.blocks()[b].succ) {
      bool grew = false;
      for (size_t r = 0; r < regs.size(); ++r) {
        Taint merged = in[s][r];
        merged.join(regs[r]);
        if (merged != in[s][r]) {
          in[s][r] = merged;
          grew = true;
        }
      }
      if ((grew || !visited[s]) && !queued[s]) {
        work.push_back(s);
        queued[s] = 1;
      }
    }
  }

  for (uint32_t b = 0; b < num_blocks; ++b) {
    if (b == cfg.virtual_exit()) continue;
    RegTaint regs = in[b];
    for (uint32_t pc = cfg.blocks()[b].first; pc <= cfg.blocks()[b].last; ++pc) {
      if (cfg.is_conditional_branch(pc)) {
        const Instr& branch = fn.code[pc];
        const Taint& t = regs[branch.guard];
        branches_.push_back(BranchTaint{
            pc, branch.guard, (t.sources & kFromData) ? BranchClass::kData : BranchClass::kProgrammatic,
            t.sources, t.data_load_pc});
      }
      propagator.step(pc, regs);
    }
  }
  std::sort(branches_.begin(), branches_.end(),
            [](const BranchTaint& a, const BranchTaint& b) { return a.pc < b.pc; });
}

const BranchTaint& TaintAnalysis::at(uint32_t pc) const {
  const auto it = std::lower_bound(branches_.begin(), branches_.end(), pc,
                                   [](const BranchTaint& b, uint32_t value) { return b.pc < value; });
  if (it == branches_.end() || it->pc != pc) {
    throw std::out_of_range("no conditional branch at pc " + std::to_string(pc));
  }
  return *it;
}

char branch_class_letter(BranchClass kind) {
  return kind == BranchClass::kData ? 'D' : 'P';
}

std::string describe_sources(uint8_t sources) {
  static const std::pair<uint8_t, const char*> kNames[] = {
      {kFromData, "data"},   {kFromThread, "thread"},   {kFromCta, "cta"},
      {kFromParam, "param"}, {kFromMachine, "machine"},
  };
  std::string out;
  for (const auto& [bit, name] : kNames) {
    if (!(sources & bit)) continue;
    if (!out.empty()) out += '+';
    out += name;
  }
  return out.empty() ? "imm" : out;
}

}  // namespace simtlm::ptx
