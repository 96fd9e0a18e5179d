// Operand layout of every non-warp opcode family, and the refusal of types the functional model does not
// compute in. Split from decode.cpp, which reads the opcode and its modifiers.
#include <string>

#include "models/ptx/decode_internal.hpp"

namespace simtlm::ptx::decode_detail {

namespace {

// --- Per-family operand layout ------------------------------------------------------------------------

bool is_half_type(Type t) {
  return t == Type::f16 || t == Type::bf16 || t == Type::f16x2 || t == Type::bf16x2;
}
bool is_packed_type(Type t) {
  return t == Type::f16x2 || t == Type::bf16x2;
}

// The functional model computes in f32 and f64; half-precision values may be moved, loaded, stored, compared
// and converted, but arithmetic on them is refused here so it is never discovered halfway through a run.
bool is_float_arithmetic(Op op) {
  switch (op) {
    case Op::add:
    case Op::sub:
    case Op::mul:
    case Op::mad:
    case Op::fma:
    case Op::div:
    case Op::abs:
    case Op::neg:
    case Op::min:
    case Op::max:
    case Op::copysign:
    case Op::sqrt:
    case Op::rsqrt:
    case Op::rcp:
    case Op::ex2:
    case Op::lg2:
    case Op::sin:
    case Op::cos:
    case Op::tanh:
    case Op::testp:
      return true;
    default:
      return false;
  }
}

std::string fmt_coordinates(std::string_view opcode, unsigned want) {
  return "bad operand: " + quoted(opcode) + " takes its coordinates as a vector of " + std::to_string(want) +
         (want == 4   ? " registers (x, y, z and an unused fourth)"
          : want == 1 ? " register"
                      : " registers") +
         " after the texture object: [%rd, {...}]";
}

}  // namespace

void check_supported_type(const Instr& instr, std::string_view opcode) {
  if (instr.type == Type::b128) unsupported("type .b128 is not supported in " + quoted(opcode));
  if (is_float_arithmetic(instr.op) && is_half_type(instr.type)) {
    unsupported("half-precision arithmetic is not supported (f32 and f64 are): " + quoted(opcode));
  }
  if ((instr.op == Op::cvt || instr.op == Op::setp) &&
      (is_packed_type(instr.type) || is_packed_type(instr.type2))) {
    unsupported("packed f16x2/bf16x2 types are not supported in " + quoted(opcode));
  }
}

void decode_operands(std::string_view opcode, std::vector<ParsedOperand>& ops, Instr& instr) {
  const Type t = instr.type;
  auto dst = [&](size_t index, bool allow_vec = false) {
    instr.dst[0] = destination(ops[index], allow_vec);
    instr.ndst = 1;
  };
  if (decode_warp_operands(opcode, ops, instr)) return;
  switch (instr.op) {
    case Op::bra:
      expect_count(ops, 1, "bra");
      if (ops[0].operand.kind != OperandKind::label) fail("bad operand: bra needs a label");
      return;
    case Op::ret:
    case Op::exit:
    case Op::trap:
    case Op::membar:
      expect_count(ops, 0, opcode);
      return;
    case Op::bar: {
      if (instr.sub == Sub::none) unsupported("unsupported barrier form " + quoted(opcode));
      bool reduction = instr.sub != Sub::bar_sync && instr.sub != Sub::bar_arrive;
      size_t first = reduction ? 1 : 0;
      size_t minimum = first + (instr.sub == Sub::bar_arrive ? 2 : 1) + (reduction ? 1 : 0);
      if (ops.size() < minimum || ops.size() > minimum + (instr.sub == Sub::bar_arrive ? 0 : 1)) {
        fail("wrong operand count for " + quoted(opcode));
      }
      if (reduction) dst(0);
      size_t count_end = reduction ? ops.size() - 1 : ops.size();
      for (size_t i = first; i < count_end; ++i) instr.src[i - first] = source(ops[i], Type::u32);
      instr.nsrc = static_cast<uint8_t>(count_end - first);
      if (reduction) {
        instr.src[2] = source(ops.back(), Type::pred, kSrcNegate);
        instr.nsrc = 3;  // src[1] stays OperandKind::none when no thread count was written
      }
      return;
    }
    case Op::bar_warp:
      expect_count(ops, 1, "bar.warp.sync");
      instr.src[0] = source(ops[0], Type::u32);
      instr.nsrc = 1;
      return;
    case Op::activemask:
      expect_count(ops, 1, "activemask");
      dst(0);
      return;
    case Op::add:
    case Op::sub:
    case Op::min:
    case Op::max:
    case Op::div:
    case Op::rem:
    case Op::copysign:
    case Op::and_:
    case Op::or_:
    case Op::xor_:
      expect_count(ops, 3, opcode);
      dst(0);
      set_sources(instr, ops, 1, {t, t});
      return;
    case Op::mul:
    case Op::mul24: {
      expect_count(ops, 3, opcode);
      dst(0);
      set_sources(instr, ops, 1, {t, t});
      if (!type_is_float(t) && instr.sub == Sub::none) fail(quoted(opcode) + " needs .lo, .hi or .wide");
      return;
    }
    case Op::mad:
    case Op::mad24:
    case Op::fma:
    case Op::sad: {
      expect_count(ops, 4, opcode);
      dst(0);
      Type c_type = instr.sub == Sub::wide ? (type_is_signed(t) ? (t == Type::s16 ? Type::s32 : Type::s64)
                                                                : (t == Type::u16 ? Type::u32 : Type::u64))
                                           : t;
      set_sources(instr, ops, 1, {t, t, c_type});
      if ((instr.op == Op::mad || instr.op == Op::mad24) && !type_is_float(t) && instr.sub == Sub::none) {
        fail(quoted(opcode) + " needs .lo, .hi or .wide");
      }
      if (instr.op == Op::fma && instr.rnd == Rounding::none) fail("fma needs a rounding modifier");
      return;
    }
    case Op::abs:
    case Op::neg:
    case Op::not_:
    case Op::cnot:
    case Op::popc:
    case Op::clz:
    case Op::bfind:
    case Op::brev:
    case Op::sqrt:
    case Op::rsqrt:
    case Op::rcp:
    case Op::ex2:
    case Op::lg2:
    case Op::sin:
    case Op::cos:
    case Op::tanh:
      expect_count(ops, 2, opcode);
      dst(0);
      set_sources(instr, ops, 1, {t});
      return;
    case Op::shl:
    case Op::shr:
      expect_count(ops, 3, opcode);
      dst(0);
      set_sources(instr, ops, 1, {t, Type::u32});
      return;
    case Op::shf:
      if (instr.sub == Sub::none) fail("shf needs .l or .r");
      if (!(instr.flags & (kWrap | kClamp))) fail("shf needs .wrap or .clamp");
      expect_count(ops, 4, opcode);
      dst(0);
      set_sources(instr, ops, 1, {t, t, Type::u32});
      return;
    case Op::bfe:
      expect_count(ops, 4, opcode);
      dst(0);
      set_sources(instr, ops, 1, {t, Type::u32, Type::u32});
      return;
    case Op::bfi:
      expect_count(ops, 5, opcode);
      dst(0);
      set_sources(instr, ops, 1, {t, t, Type::u32, Type::u32});
      return;
    case Op::prmt:
      expect_count(ops, 4, opcode);
      dst(0);
      set_sources(instr, ops, 1, {t, t, Type::b32});
      return;
    case Op::lop3:
      expect_count(ops, 5, opcode);
      dst(0);
      set_sources(instr, ops, 1, {t, t, t, Type::b32});
      if (instr.src[3].kind != OperandKind::imm) fail("bad operand: lop3 needs an immediate lookup table");
      return;
    case Op::setp: {
      size_t count = instr.bop == BoolOp::none ? 3 : 4;
      expect_count(ops, count, opcode);
      ParsedOperand first = ops[0];
      uint32_t pair = first.pair_reg;
      first.pair_reg = kNoReg;
      instr.dst[0] = destination(first);
      instr.ndst = 1;
      if (pair != kNoReg) {
        instr.dst[1].kind = OperandKind::reg;
        instr.dst[1].reg = pair;
        instr.ndst = 2;
      }
      set_sources(instr, ops, 1, {t, t});
      if (count == 4) {
        instr.src[2] = source(ops[3], Type::pred, kSrcNegate);
        instr.nsrc = 3;
      }
      return;
    }
    case Op::selp:
      expect_count(ops, 4, opcode);
      dst(0);
      set_sources(instr, ops, 1, {t, t, Type::pred});
      return;
    case Op::slct:
      expect_count(ops, 4, opcode);
      dst(0);
      set_sources(instr, ops, 1, {t, t, instr.type2});
      return;
    case Op::testp:
      if (instr.sub == Sub::none) fail("testp needs a test (.finite, .nan, ...)");
      expect_count(ops, 2, opcode);
      dst(0);
      set_sources(instr, ops, 1, {t});
      return;
    case Op::mov:
      expect_count(ops, 2, opcode);
      dst(0, /*allow_vec=*/true);
      instr.src[0] = source(ops[1], t, kSrcSpecial | kSrcSymbol | kSrcVec);
      instr.nsrc = 1;
      if (instr.dst[0].kind == OperandKind::vec && instr.src[0].kind != OperandKind::reg) {
        fail("bad operand: vector unpack needs a register source");
      }
      return;
    case Op::cvt:
      if (ops.size() == 3 && (t == Type::f16x2 || t == Type::bf16x2)) {
        dst(0);
        set_sources(instr, ops, 1, {instr.type2, instr.type2});
        return;
      }
      expect_count(ops, 2, opcode);
      dst(0);
      set_sources(instr, ops, 1, {instr.type2});
      return;
    case Op::cvta:
      if (instr.space == Space::none) fail("cvta needs a state space");
      if (instr.sub == Sub::none) instr.sub = Sub::from_space;
      if (t != Type::u32 && t != Type::u64) fail("cvta needs .u32 or .u64");
      expect_count(ops, 2, opcode);
      dst(0);
      instr.src[0] = source(ops[1], t, kSrcSymbol);
      instr.nsrc = 1;
      return;
    case Op::ld: {
      if (instr.space == Space::none) instr.space = Space::generic;
      if ((instr.flags & kNc) && instr.space != Space::global) fail("ld.nc is only valid for .global");
      expect_count(ops, 2, opcode);
      dst(0, /*allow_vec=*/true);
      bool is_vec = instr.dst[0].kind == OperandKind::vec;
      if (is_vec != (instr.vec > 1) || (is_vec && instr.dst[0].count != instr.vec)) {
        fail("bad operand: vector destination does not match ." + std::string(is_vec ? "v" : "") +
             std::to_string(instr.vec));
      }
      instr.src[0] = memory(ops[1]);
      instr.nsrc = 1;
      return;
    }
    case Op::st: {
      if (instr.space == Space::none) instr.space = Space::generic;
      expect_count(ops, 2, opcode);
      instr.src[0] = memory(ops[0]);
      instr.src[1] = source(ops[1], t, kSrcVec);
      instr.nsrc = 2;
      bool is_vec = instr.src[1].kind == OperandKind::vec;
      if (is_vec != (instr.vec > 1) || (is_vec && instr.src[1].count != instr.vec)) {
        fail("bad operand: vector source does not match the .v modifier");
      }
      return;
    }
    case Op::atom:
    case Op::red: {
      if (instr.space == Space::none) instr.space = Space::generic;
      if (instr.space != Space::global && instr.space != Space::shared && instr.space != Space::generic) {
        unsupported("atomics on ." + std::string(space_name(instr.space)) + " are not supported");
      }
      if (instr.sub == Sub::none) fail(quoted(opcode) + " needs an operation (.add, .cas, ...)");
      bool is_atom = instr.op == Op::atom;
      if (!is_atom && instr.sub == Sub::a_cas) fail("red.cas does not exist");
      size_t count = (is_atom ? 3 : 2) + (instr.sub == Sub::a_cas ? 1 : 0);
      expect_count(ops, count, opcode);
      size_t first = 0;
      if (is_atom) {
        dst(0);
        first = 1;
      }
      instr.src[0] = memory(ops[first]);
      instr.src[1] = source(ops[first + 1], t);
      instr.nsrc = 2;
      if (instr.sub == Sub::a_cas) {
        instr.src[2] = source(ops[first + 2], t);
        instr.nsrc = 3;
      }
      return;
    }
    case Op::tex: {
      // tex.{1d,2d,3d}.v4.{u32,s32,f32}.{f32,s32} {d0, d1, d2, d3}, [handle, {coordinates}]
      if (instr.sub == Sub::none) fail(quoted(opcode) + " needs a geometry (.1d, .2d or .3d)");
      if (instr.vec != 4) unsupported(quoted(opcode) + ": only .v4 texture fetches are supported");
      if (t != Type::u32 && t != Type::s32 && t != Type::f32)
        unsupported(quoted(opcode) + ": texture results of type ." + type_name(t) +
                    " are not supported (.u32, .s32 and .f32 are)");
      if (instr.type2 != Type::f32 && instr.type2 != Type::s32)
        unsupported(quoted(opcode) + ": coordinates of type ." + type_name(instr.type2) +
                    " are not supported (.f32 and .s32 are)");
      if (ops.size() > 3)
        unsupported(quoted(opcode) + ": offset and depth-compare operands of tex are not supported");
      expect_count(ops, 3, opcode);
      dst(0, /*allow_vec=*/true);
      if (instr.dst[0].kind != OperandKind::vec || instr.dst[0].count != 4)
        fail("bad operand: tex needs a destination vector of 4 registers");
      instr.src[0] = source(ops[1], Type::u64);
      if (instr.src[0].kind != OperandKind::reg) fail("bad operand: the texture object must be a register");
      instr.src[1] = source(ops[2], instr.type2, kSrcVec);
      const unsigned want = instr.sub == Sub::tex_1d ? 1 : instr.sub == Sub::tex_2d ? 2 : 4;
      if (instr.src[1].kind != OperandKind::vec || instr.src[1].count != want)
        fail(fmt_coordinates(opcode, want));
      for (unsigned i = 0; i < instr.src[1].count; ++i) {
        if (instr.src[1].vregs[i] == kNoReg) fail("bad operand: a texture coordinate cannot be '_'");
      }
      instr.nsrc = 2;
      instr.space = Space::global;  // texels are global memory (no texture cache is modelled)
      return;
    }
    default:
      unsupported("unsupported instruction " + quoted(opcode));
  }
}

}  // namespace simtlm::ptx::decode_detail
