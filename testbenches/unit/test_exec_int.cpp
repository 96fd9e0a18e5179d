// Integer, logic and bit instructions of the functional model.
#include <gtest/gtest.h>

#include "testbenches/unit/ir_builder.hpp"

namespace simtlm::ptx {
namespace {

using namespace build;

Instr op1(Op op, Type t) {
  return I(op, t, {R(0)}, {R(1)});
}
Instr op2(Op op, Type t) {
  return I(op, t, {R(0)}, {R(1), R(2)});
}
Instr op3(Op op, Type t) {
  return I(op, t, {R(0)}, {R(1), R(2), R(3)});
}
constexpr uint64_t kIntMin = 0x80000000u;
constexpr uint64_t kMinus1 = 0xffffffffu;

TEST(ExecInt, AddSubWrapAndSaturate) {
  Harness h;
  EXPECT_EQ(h.eval(op2(Op::add, Type::u32), {0xffffffffu, 2}), 1u);
  EXPECT_EQ(h.eval(op2(Op::add, Type::s32), {0x7fffffffu, 1}), kIntMin);
  EXPECT_EQ(h.eval(flags(op2(Op::add, Type::s32), kSat), {0x7fffffffu, 1}), 0x7fffffffu);
  EXPECT_EQ(h.eval(flags(op2(Op::sub, Type::s32), kSat), {kIntMin, 1}), kIntMin);
  EXPECT_EQ(h.eval(op2(Op::sub, Type::u16), {0, 1}), 0xffffu);
  EXPECT_EQ(h.eval(op2(Op::add, Type::u64), {~0ull, 1}), 0u);
}

TEST(ExecInt, DivisionEdgeCases) {
  Harness h;
  EXPECT_EQ(h.eval(op2(Op::div, Type::u32), {7, 0}), 0xffffffffu);
  EXPECT_EQ(h.eval(op2(Op::rem, Type::u32), {7, 0}), 7u);
  EXPECT_EQ(h.eval(op2(Op::div, Type::u64), {7, 0}), ~0ull);
  EXPECT_EQ(h.eval(op2(Op::div, Type::s32), {kIntMin, kMinus1}), kIntMin);
  EXPECT_EQ(h.eval(op2(Op::rem, Type::s32), {kIntMin, kMinus1}), 0u);
  EXPECT_EQ(h.eval(op2(Op::div, Type::s64), {1ull << 63, ~0ull}), 1ull << 63);
  EXPECT_EQ(h.eval(op2(Op::rem, Type::s64), {1ull << 63, ~0ull}), 0u);
  EXPECT_EQ(h.eval(op2(Op::div, Type::s32), {5, 0}), kMinus1);        // -1 for x >= 0
  EXPECT_EQ(h.eval(op2(Op::div, Type::s32), {uint64_t(-5), 0}), 1u);  // 1 for x < 0
  EXPECT_EQ(h.eval(op2(Op::rem, Type::s32), {uint64_t(-5) & kMinus1, 0}), uint64_t(-5) & kMinus1);
  EXPECT_EQ(h.eval(op2(Op::div, Type::s32), {uint64_t(-7) & kMinus1, 2}), uint64_t(-3) & kMinus1);
  EXPECT_EQ(h.eval(op2(Op::rem, Type::s32), {uint64_t(-7) & kMinus1, 2}), uint64_t(-1) & kMinus1);
}

TEST(ExecInt, MultiplyForms) {
  Harness h;
  EXPECT_EQ(h.eval(with(op2(Op::mul, Type::u32), Sub::lo), {0x10000, 0x10001}), 0x10000u);
  EXPECT_EQ(h.eval(with(op2(Op::mul, Type::u32), Sub::hi), {0x80000000u, 4}), 2u);
  EXPECT_EQ(h.eval(with(op2(Op::mul, Type::s32), Sub::hi), {kMinus1, 2}), kMinus1);
  EXPECT_EQ(h.eval(with(op2(Op::mul, Type::s32), Sub::wide), {kMinus1, 3}), uint64_t(-3));
  EXPECT_EQ(h.eval(with(op2(Op::mul, Type::u32), Sub::wide), {kMinus1, kMinus1}), 0xfffffffe00000001ull);
  EXPECT_EQ(h.eval(with(op2(Op::mul, Type::u16), Sub::wide), {0xffff, 0xffff}), 0xfffe0001u);
  EXPECT_EQ(h.eval(with(op2(Op::mul, Type::u64), Sub::hi), {~0ull, ~0ull}), ~0ull - 1);
  EXPECT_EQ(h.eval(with(op2(Op::mul, Type::s64), Sub::hi), {~0ull, 5}), ~0ull);
  EXPECT_EQ(h.eval(with(op3(Op::mad, Type::u32), Sub::lo), {3, 4, 5}), 17u);
  EXPECT_EQ(h.eval(with(op3(Op::mad, Type::s32), Sub::wide), {kMinus1, 2, 10}), 8u);
  EXPECT_EQ(
      h.eval(flags(with(op3(Op::mad, Type::s32), Sub::hi), kSat), {0x7fffffffu, 0x7fffffffu, 0x7fffffffu}),
      0x7fffffffu);
  EXPECT_EQ(h.eval(flags(with(op3(Op::mad, Type::s32), Sub::hi), kSat), {kIntMin, 0x7fffffffu, kIntMin}),
            kIntMin);
  EXPECT_EQ(h.eval(with(op2(Op::mul24, Type::u32), Sub::lo), {0x1000001, 2}), 2u);  // bit 24 ignored
  EXPECT_EQ(h.eval(with(op2(Op::mul24, Type::u32), Sub::hi), {0xffffff, 0xffffff}), 0xfffffe00u);
  EXPECT_EQ(h.eval(with(op2(Op::mul24, Type::s32), Sub::lo), {0xffffff, 3}), uint64_t(-3) & kMinus1);
  EXPECT_EQ(h.eval(with(op3(Op::mad24, Type::u32), Sub::lo), {3, 4, 1}), 13u);
}

TEST(ExecInt, AbsNegMinMaxSad) {
  Harness h;
  EXPECT_EQ(h.eval(op1(Op::abs, Type::s32), {kIntMin}), kIntMin);
  EXPECT_EQ(h.eval(op1(Op::abs, Type::s32), {uint64_t(-9) & kMinus1}), 9u);
  EXPECT_EQ(h.eval(op1(Op::abs, Type::s16), {0xfff7}), 9u);
  EXPECT_EQ(h.eval(op1(Op::neg, Type::s32), {1}), kMinus1);
  EXPECT_EQ(h.eval(op2(Op::min, Type::s32), {kMinus1, 1}), kMinus1);
  EXPECT_EQ(h.eval(op2(Op::min, Type::u32), {kMinus1, 1}), 1u);
  EXPECT_EQ(h.eval(op2(Op::max, Type::s64), {~0ull, 1}), 1u);
  EXPECT_EQ(h.eval(op2(Op::max, Type::u16), {0xffff, 1}), 0xffffu);
  EXPECT_EQ(h.eval(op3(Op::sad, Type::s32), {uint64_t(-3) & kMinus1, 4, 100}), 107u);
  EXPECT_EQ(h.eval(op3(Op::sad, Type::u32), {3, 10, 1}), 8u);
}

TEST(ExecInt, LogicAndShifts) {
  Harness h;
  EXPECT_EQ(h.eval(op2(Op::and_, Type::b32), {0xf0f0, 0xff00}), 0xf000u);
  EXPECT_EQ(h.eval(op2(Op::or_, Type::b16), {0xf0f0, 0x0f0f}), 0xffffu);
  EXPECT_EQ(h.eval(op2(Op::xor_, Type::b64), {~0ull, 1}), ~0ull - 1);
  EXPECT_EQ(h.eval(op1(Op::not_, Type::b32), {0}), 0xffffffffu);
  EXPECT_EQ(h.eval(op1(Op::cnot, Type::b32), {0}), 1u);
  EXPECT_EQ(h.eval(op1(Op::cnot, Type::b32), {5}), 0u);
  EXPECT_EQ(h.eval(op2(Op::and_, Type::pred), {1, 0}), 0u);
  EXPECT_EQ(h.eval(op1(Op::not_, Type::pred), {0}), 1u);
  EXPECT_EQ(h.eval(op2(Op::shl, Type::b32), {1, 31}), 0x80000000u);
  EXPECT_EQ(h.eval(op2(Op::shl, Type::b32), {1, 32}), 0u);
  EXPECT_EQ(h.eval(op2(Op::shl, Type::b64), {1, 200}), 0u);
  EXPECT_EQ(h.eval(op2(Op::shr, Type::u32), {kIntMin, 40}), 0u);
  EXPECT_EQ(h.eval(op2(Op::shr, Type::s32), {kIntMin, 40}), kMinus1);
  EXPECT_EQ(h.eval(op2(Op::shr, Type::s32), {kIntMin, 4}), 0xf8000000u);
  EXPECT_EQ(h.eval(op2(Op::shr, Type::s16), {0x8000, 100}), 0xffffu);
  EXPECT_EQ(h.eval(op2(Op::shr, Type::s64), {1ull << 63, 64}), ~0ull);
}

TEST(ExecInt, BitCounts) {
  Harness h;
  EXPECT_EQ(h.eval(op1(Op::popc, Type::b32), {0xf0f0f0f0u}), 16u);
  EXPECT_EQ(h.eval(op1(Op::popc, Type::b64), {~0ull}), 64u);
  EXPECT_EQ(h.eval(op1(Op::clz, Type::b32), {0}), 32u);
  EXPECT_EQ(h.eval(op1(Op::clz, Type::b32), {1}), 31u);
  EXPECT_EQ(h.eval(op1(Op::clz, Type::b64), {1}), 63u);
  EXPECT_EQ(h.eval(op1(Op::bfind, Type::u32), {0}), 0xffffffffu);
  EXPECT_EQ(h.eval(op1(Op::bfind, Type::u32), {0x10}), 4u);
  EXPECT_EQ(h.eval(flags(op1(Op::bfind, Type::u32), kShiftAmt), {0x10}), 27u);
  EXPECT_EQ(h.eval(op1(Op::bfind, Type::s32), {kMinus1}), 0xffffffffu);
  EXPECT_EQ(h.eval(op1(Op::bfind, Type::s32), {0xfffffff0u}), 3u);
  EXPECT_EQ(h.eval(op1(Op::brev, Type::b32), {1}), 0x80000000u);
  EXPECT_EQ(h.eval(op1(Op::brev, Type::b64), {2}), 1ull << 62);
}

TEST(ExecInt, BitFields) {
  Harness h;
  EXPECT_EQ(h.eval(op3(Op::bfe, Type::u32), {0x12345678, 8, 8}), 0x56u);
  EXPECT_EQ(h.eval(op3(Op::bfe, Type::s32), {0x0000f000, 12, 4}), 0xffffffffu);
  EXPECT_EQ(h.eval(op3(Op::bfe, Type::s32), {0x80000000u, 28, 10}), 0xfffffff8u);  // sign from bit 31
  EXPECT_EQ(h.eval(op3(Op::bfe, Type::u32), {0xffffffffu, 28, 10}), 0xfu);
  EXPECT_EQ(h.eval(op3(Op::bfe, Type::s32), {0xffffffffu, 0, 0}), 0u);
  EXPECT_EQ(h.eval(op3(Op::bfe, Type::u64), {0xff00000000ull, 32, 8}), 0xffu);
  Instr bfi = I(Op::bfi, Type::b32, {R(0)}, {R(1), R(2), R(3), R(4)});
  h.reg(4) = 8;
  EXPECT_EQ(h.eval(bfi, {0xab, 0x12345678, 8}), 0x1234ab78u);
  h.reg(4) = 8;
  EXPECT_EQ(h.eval(bfi, {0xab, 0x12345678, 28}), 0xb2345678u);  // clipped at bit 31
  h.reg(4) = 0;
  EXPECT_EQ(h.eval(bfi, {0xab, 0x12345678, 8}), 0x12345678u);
}

TEST(ExecInt, PermuteAndLop3AndFunnelShift) {
  Harness h;
  const uint64_t a = 0x33221100, b = 0x77665544;
  EXPECT_EQ(h.eval(op3(Op::prmt, Type::b32), {a, b, 0x3210}), a);
  EXPECT_EQ(h.eval(op3(Op::prmt, Type::b32), {a, b, 0x7654}), b);
  EXPECT_EQ(h.eval(op3(Op::prmt, Type::b32), {a, b, 0x0123}), 0x00112233u);
  EXPECT_EQ(h.eval(op3(Op::prmt, Type::b32), {0x80, b, 0x8880}), 0xffffff80u);  // sign replicate
  EXPECT_EQ(h.eval(with(op3(Op::prmt, Type::b32), Sub::prmt_f4e), {a, b, 1}), 0x44332211u);
  EXPECT_EQ(h.eval(with(op3(Op::prmt, Type::b32), Sub::prmt_b4e), {a, b, 0}), 0x55667700u);
  EXPECT_EQ(h.eval(with(op3(Op::prmt, Type::b32), Sub::prmt_rc8), {a, b, 2}), 0x22222222u);
  EXPECT_EQ(h.eval(with(op3(Op::prmt, Type::b32), Sub::prmt_ecl), {a, b, 1}), 0x33221111u);
  EXPECT_EQ(h.eval(with(op3(Op::prmt, Type::b32), Sub::prmt_ecr), {a, b, 2}), 0x22221100u);
  EXPECT_EQ(h.eval(with(op3(Op::prmt, Type::b32), Sub::prmt_rc16), {a, b, 1}), 0x33223322u);
  Instr lop = I(Op::lop3, Type::b32, {R(0)}, {R(1), R(2), R(3), Imm(0x96)});  // a ^ b ^ c
  EXPECT_EQ(h.eval(lop, {0xf0, 0xcc, 0xaa}), 0xf0u ^ 0xccu ^ 0xaau);
  lop.src[3] = Imm(0xe8);  // majority
  EXPECT_EQ(h.eval(lop, {0xf0, 0xcc, 0xaa}), 0xe8u);
  Instr shfl = flags(with(op3(Op::shf, Type::b32), Sub::shf_l), kWrap);
  EXPECT_EQ(h.eval(shfl, {0x80000000u, 1, 33}), 3u);  // 33 wraps to 1
  Instr shfc = flags(with(op3(Op::shf, Type::b32), Sub::shf_l), kClamp);
  EXPECT_EQ(h.eval(shfc, {0x80000000u, 1, 33}), 0x80000000u);  // clamped to 32: d = a
  Instr shfr = flags(with(op3(Op::shf, Type::b32), Sub::shf_r), kClamp);
  EXPECT_EQ(h.eval(shfr, {0x1, 0x3, 4}), 0x30000000u);
  EXPECT_EQ(h.eval(shfr, {0x1, 0x3, 40}), 0x3u);
}

TEST(ExecInt, CompareAndSelect) {
  Harness h;
  EXPECT_EQ(h.eval(with(op2(Op::setp, Type::s32), Cmp::lt), {kMinus1, 0}), 1u);
  EXPECT_EQ(h.eval(with(op2(Op::setp, Type::u32), Cmp::lt), {kMinus1, 0}), 0u);
  EXPECT_EQ(h.eval(with(op2(Op::setp, Type::s32), Cmp::lo), {kMinus1, 0}), 0u);
  EXPECT_EQ(h.eval(with(op2(Op::setp, Type::b16), Cmp::ne), {0x10000, 0}), 0u);  // high bits ignored
  Instr both = with(I(Op::setp, Type::s32, {R(0), R(5)}, {R(1), R(2), NotR(3)}), Cmp::gt);
  both.bop = BoolOp::and_;
  EXPECT_EQ(h.eval(both, {5, 1, 0}), 1u);
  EXPECT_EQ(h.reg(5), 0u);  // q = !gt && !c
  both.bop = BoolOp::or_;
  EXPECT_EQ(h.eval(both, {0, 1, 0}), 1u);
  EXPECT_EQ(h.reg(5), 1u);
  EXPECT_EQ(h.eval(op3(Op::selp, Type::u32), {10, 20, 0}), 20u);
  EXPECT_EQ(h.eval(op3(Op::selp, Type::u32), {10, 20, 1}), 10u);
  EXPECT_EQ(h.eval(type2(op3(Op::slct, Type::u32), Type::s32), {10, 20, kMinus1}), 20u);
  EXPECT_EQ(h.eval(type2(op3(Op::slct, Type::u32), Type::f32), {10, 20, 0x80000000u}), 10u);  // -0 >= 0
}

TEST(ExecInt, GuardedLanesDoNotWrite) {
  Harness h;
  for (unsigned l = 0; l < 32; ++l) {
    h.reg(1, l) = l;
    h.reg(3, l) = l % 2;
    h.reg(0, l) = 999;
  }
  WarpStep s = h.run(guard(I(Op::add, Type::u32, {R(0)}, {R(1), Imm(1)}), 3), 0x0000ffffu);
  EXPECT_EQ(s.active, 0x0000aaaau);
  EXPECT_EQ(h.reg(0, 1), 2u);
  EXPECT_EQ(h.reg(0, 2), 999u);
  EXPECT_EQ(h.reg(0, 17), 999u);
  s = h.run(guard(I(Op::add, Type::u32, {R(0)}, {R(1), Imm(1)}), 3, true), 0x0000ffffu);
  EXPECT_EQ(s.active, 0x00005555u);
  EXPECT_EQ(h.reg(0, 2), 3u);
}

}  // namespace
}  // namespace simtlm::ptx
