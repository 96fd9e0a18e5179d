// Builds IR functions and instructions by hand for unit tests of the functional model, plus a harness that
// owns a one-function module, a launch, one CTA and one warp.
#pragma once

#include <bit>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>

#include "models/ptx/functional.hpp"

namespace simtlm::ptx::build {

inline Operand R(uint32_t reg) {
  Operand o;
  o.kind = OperandKind::reg;
  o.reg = reg;
  return o;
}
inline Operand NotR(uint32_t reg) {
  Operand o = R(reg);
  o.negate = true;
  return o;
}
inline Operand Imm(uint64_t bits) {
  Operand o;
  o.kind = OperandKind::imm;
  o.imm = bits;
  return o;
}
inline Operand F32(float f) {
  return Imm(std::bit_cast<uint32_t>(f));
}
inline Operand F64(double d) {
  return Imm(std::bit_cast<uint64_t>(d));
}
inline Operand Sreg(SpecialReg r) {
  Operand o;
  o.kind = OperandKind::special;
  o.sreg = r;
  return o;
}
inline Operand SymAddr(uint32_t sym, uint64_t offset = 0) {
  Operand o;
  o.kind = OperandKind::sym_addr;
  o.sym = sym;
  o.imm = offset;
  return o;
}
inline Operand Mem(uint32_t reg, uint64_t offset = 0, uint32_t sym = kNoSym) {
  Operand o;
  o.kind = OperandKind::mem;
  o.reg = reg;
  o.sym = sym;
  o.imm = offset;
  return o;
}
inline Operand Vec(std::initializer_list<uint32_t> regs) {
  Operand o;
  o.kind = OperandKind::vec;
  o.count = uint8_t(regs.size());
  unsigned i = 0;
  for (uint32_t r : regs) o.vregs[i++] = r;
  return o;
}

inline Instr I(Op op, Type type, std::initializer_list<Operand> dst, std::initializer_list<Operand> src) {
  Instr in;
  in.op = op;
  in.type = type;
  for (const Operand& d : dst) in.dst[in.ndst++] = d;
  for (const Operand& s : src) in.src[in.nsrc++] = s;
  in.line = 100;
  return in;
}
// Chainable modifiers.
inline Instr with(Instr in, Sub sub) {
  in.sub = sub;
  return in;
}
inline Instr with(Instr in, Rounding r) {
  in.rnd = r;
  return in;
}
inline Instr with(Instr in, Cmp c) {
  in.cmp = c;
  return in;
}
inline Instr with(Instr in, Space s) {
  in.space = s;
  return in;
}
inline Instr flags(Instr in, uint16_t f) {
  in.flags |= f;
  return in;
}
inline Instr type2(Instr in, Type t) {
  in.type2 = t;
  return in;
}
inline Instr guard(Instr in, uint32_t reg, bool negated = false) {
  in.guard = reg;
  in.guard_neg = negated;
  return in;
}

// One kernel with `nregs` untyped registers, one CTA, one warp (warp 0). Not movable: the executor keeps
// references into it.
struct Harness {
  Module module;
  GlobalMemory global;
  LaunchContext launch;
  CtaContext cta;
  WarpContext warp;
  std::unique_ptr<Executor> executor;
  std::string printed;

  explicit Harness(unsigned nregs = 32, Dim3 block = {32, 1, 1}, uint32_t shared_bytes = 1024,
                   uint32_t local_bytes = 64) {
    module.path = "test.ptx";
    module.files = {"", "kernel.cu"};
    Function fn;
    fn.name = "test_kernel";
    fn.is_entry = true;
    fn.regs.resize(nregs, RegInfo{"%r", Type::b64});
    fn.local_bytes = local_bytes;
    module.functions.push_back(fn);
    launch.module = &module;
    launch.kernel = &module.functions[0];
    launch.block = block;
    launch.global = &global;
    launch.printf_sink = &printed;
    cta.shared.assign(shared_bytes, 0);
    cta.ctaid = Dim3{2, 3, 4};
    executor = std::make_unique<Executor>(launch);
    executor->init_warp(warp, cta, 0);
  }
  Harness(const Harness&) = delete;
  Harness& operator=(const Harness&) = delete;

  Function& fn() { return module.functions[0]; }
  // Adds a symbol and returns its index.
  uint32_t add_symbol(Symbol s) {
    module.symbols.push_back(std::move(s));
    launch.symbol_address.resize(module.symbols.size(), 0);
    return uint32_t(module.symbols.size() - 1);
  }
  // Appends the instruction and executes it for mask.
  WarpStep run(const Instr& in, LaneMask mask = 0xffffffffu) {
    fn().code.push_back(in);
    return executor->execute(warp, uint32_t(fn().code.size() - 1), mask);
  }
  uint64_t& reg(uint32_t r, unsigned lane = 0) { return warp.regs[size_t(r) * kWarpSize + lane]; }
  void set_all(uint32_t r, uint64_t v) {
    for (unsigned l = 0; l < kWarpSize; ++l) reg(r, l) = v;
  }
  // Runs a one-result instruction for lane 0 on the given source values placed in registers 1..n.
  uint64_t eval(Instr in, std::initializer_list<uint64_t> sources) {
    unsigned i = 1;
    for (uint64_t v : sources) reg(i++, 0) = v;
    run(in, 1);
    return reg(in.dst[0].reg, 0);
  }
};

}  // namespace simtlm::ptx::build
