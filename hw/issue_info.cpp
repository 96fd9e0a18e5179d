#include "hw/issue_info.hpp"

#include <algorithm>

#include "common/location.hpp"

namespace simtlm::hw {

using ptx::Op;
using ptx::OperandKind;

const char* op_class_name(OpClass c) {
  static constexpr const char* kNames[] = {"int", "float", "double", "sfu", "memory", "branch"};
  return kNames[static_cast<size_t>(c)];
}

OpClass classify(const ptx::Instr& in) {
  switch (in.op) {
    case Op::bra:
    case Op::ret:
    case Op::exit:
    case Op::trap:
    case Op::call:
    case Op::bar:
    case Op::bar_warp:
    case Op::membar:
      return OpClass::branch;
    case Op::ld:
    case Op::st:
    case Op::atom:
    case Op::red:
    case Op::tex:  // a texel load per lane through the L1 path
      return OpClass::memory;
    case Op::sqrt:
    case Op::rsqrt:
    case Op::rcp:
    case Op::ex2:
    case Op::lg2:
    case Op::sin:
    case Op::cos:
    case Op::tanh:
      return in.type == ptx::Type::f64 ? OpClass::float64 : OpClass::sfu;
    case Op::div:
      if (in.type == ptx::Type::f64) return OpClass::float64;
      return ptx::type_is_float(in.type) ? OpClass::sfu : OpClass::integer;
    default:
      break;
  }
  // Conversions run where their wider floating-point side runs.
  const ptx::Type t = in.op == Op::cvt && in.type2 == ptx::Type::f64 ? in.type2 : in.type;
  if (t == ptx::Type::f64) return OpClass::float64;
  if (ptx::type_is_float(t) || ptx::type_is_float(in.type2)) return OpClass::float32;
  return OpClass::integer;
}

namespace {

template <size_t N>
void add_reg(uint32_t reg, std::array<uint32_t, N>& regs, uint8_t& n) {
  if (reg == ptx::kNoReg || n == N) return;
  for (uint8_t i = 0; i < n; ++i) {
    if (regs[i] == reg) return;
  }
  regs[n++] = reg;
}

template <size_t N>
void add_operand(const ptx::Operand& op, std::array<uint32_t, N>& regs, uint8_t& n) {
  if (op.kind == OperandKind::reg || op.kind == OperandKind::mem) add_reg(op.reg, regs, n);
  if (op.kind != OperandKind::vec) return;
  for (uint8_t i = 0; i < op.count; ++i) add_reg(op.vregs[i], regs, n);
}

}  // namespace

std::vector<IssueInfo> decode_issue_info(const ptx::Function& fn, const ptx::Cfg& cfg) {
  std::vector<IssueInfo> out(fn.code.size());
  for (uint32_t pc = 0; pc < fn.code.size(); ++pc) {
    const ptx::Instr& in = fn.code[pc];
    IssueInfo& info = out[pc];
    info.cls = classify(in);
    add_reg(in.guard, info.src, info.nsrc);
    for (uint8_t i = 0; i < in.nsrc; ++i) add_operand(in.src[i], info.src, info.nsrc);
    for (uint8_t i = 0; i < in.ndst; ++i) add_operand(in.dst[i], info.dst, info.ndst);
    if (in.op == Op::bra) {
      info.reconvergence_pc = cfg.reconvergence_pc(pc);
      info.conditional = cfg.is_conditional_branch(pc);
    }
  }
  return out;
}

uint32_t max_live_register_words(const ptx::Function& fn, const std::vector<IssueInfo>& info) {
  const size_t n = fn.code.size(), words = (fn.regs.size() + 63) / 64;
  if (words == 0 || n == 0) return 0;
  std::vector<uint32_t> width(fn.regs.size());
  for (size_t r = 0; r < fn.regs.size(); ++r) {
    width[r] = fn.regs[r].type == ptx::Type::pred ? 0 : (ptx::type_bits(fn.regs[r].type) + 31) / 32;
  }
  // Backward liveness per instruction until nothing changes: live_in = uses | (live_out & ~defs).
  std::vector<uint64_t> live_in(n * words, 0);
  std::vector<uint64_t> out(words);
  auto successors = [&](uint32_t pc, uint32_t* succ) {
    const ptx::Instr& in = fn.code[pc];
    const bool ends = in.op == Op::ret || in.op == Op::exit || in.op == Op::trap;
    uint32_t count = 0;
    if (in.op == Op::bra && in.target != ptx::kNoTarget) succ[count++] = in.target;
    const bool falls = !ends && !(in.op == Op::bra && in.guard == ptx::kNoReg);
    if (falls && pc + 1 < n) succ[count++] = pc + 1;
    return count;
  };
  uint32_t peak = 0;
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = n; i-- > 0;) {
      const auto pc = static_cast<uint32_t>(i);
      std::fill(out.begin(), out.end(), 0);
      uint32_t succ[2];
      for (uint32_t s = 0, c = successors(pc, succ); s < c; ++s) {
        for (size_t w = 0; w < words; ++w) out[w] |= live_in[succ[s] * words + w];
      }
      const IssueInfo& ii = info[pc];
      // A guarded instruction may leave its destination unwritten: only unguarded ones kill it.
      if (fn.code[pc].guard == ptx::kNoReg) {
        for (uint8_t d = 0; d < ii.ndst; ++d) out[ii.dst[d] / 64] &= ~(uint64_t{1} << (ii.dst[d] % 64));
      }
      for (uint8_t s = 0; s < ii.nsrc; ++s) out[ii.src[s] / 64] |= uint64_t{1} << (ii.src[s] % 64);
      uint64_t* in = live_in.data() + pc * words;
      if (!std::equal(out.begin(), out.end(), in)) {
        std::copy(out.begin(), out.end(), in);
        changed = true;
      }
    }
  }
  for (size_t pc = 0; pc < n; ++pc) {
    uint32_t live = 0;
    for (size_t r = 0; r < fn.regs.size(); ++r) {
      if (live_in[pc * words + r / 64] >> (r % 64) & 1) live += width[r];
    }
    // Results written here are live alongside the inputs still needed after.
    for (uint8_t d = 0; d < info[pc].ndst; ++d) live += width[info[pc].dst[d]];
    peak = std::max(peak, live);
  }
  return peak;
}

std::string describe_pc(const ptx::Module& module, const ptx::Function& fn, uint32_t pc) {
  std::string s = "PC " + std::to_string(pc);
  if (pc >= fn.code.size()) return s;
  const ptx::Instr& in = fn.code[pc];
  s += " (PTX line " + std::to_string(in.line);
  if (in.loc_file > 0 && in.loc_file < module.files.size() && in.loc_line > 0) {
    s += ", " + common::location(module.files[in.loc_file], in.loc_line);
  }
  return s + ")";
}

}  // namespace simtlm::hw
