#include "hw/issue_info.hpp"

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

std::string describe_pc(const ptx::Module& module, const ptx::Function& fn, uint32_t pc) {
  std::string s = "PC " + std::to_string(pc);
  if (pc >= fn.code.size()) return s;
  const ptx::Instr& in = fn.code[pc];
  s += " (PTX line " + std::to_string(in.line);
  if (in.loc_file > 0 && in.loc_file < module.files.size() && in.loc_line > 0) {
    s += ", " + module.files[in.loc_file] + ":" + std::to_string(in.loc_line);
  }
  return s + ")";
}

}  // namespace simtlm::hw
