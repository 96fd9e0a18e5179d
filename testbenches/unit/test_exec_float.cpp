// Floating-point arithmetic, compares and special functions of the functional model.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

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
uint64_t b(float f) {
  return std::bit_cast<uint32_t>(f);
}
uint64_t d(double x) {
  return std::bit_cast<uint64_t>(x);
}
float f(uint64_t v) {
  return std::bit_cast<float>(uint32_t(v));
}

constexpr float kSub = 1e-40f;  // an f32 subnormal
const float kNaN = std::numeric_limits<float>::quiet_NaN();

TEST(ExecFloat, AddRoundingModes) {
  Harness h;
  // 1 + 2^-24 lies exactly halfway between 1 and the next float: ties go to even (1).
  const float tiny = std::ldexp(1.0f, -24);
  const float next = std::nextafter(1.0f, 2.0f);
  EXPECT_EQ(h.eval(op2(Op::add, Type::f32), {b(1.0f), b(tiny)}), b(1.0f));
  EXPECT_EQ(h.eval(with(op2(Op::add, Type::f32), Rounding::rp), {b(1.0f), b(tiny)}), b(next));
  EXPECT_EQ(h.eval(with(op2(Op::add, Type::f32), Rounding::rz), {b(1.0f), b(3 * tiny)}), b(next));  // 1.5 ulp
  EXPECT_EQ(h.eval(op2(Op::add, Type::f32), {b(1.0f), b(3 * tiny)}), b(next) + 1);
  EXPECT_EQ(h.eval(with(op2(Op::add, Type::f32), Rounding::rm), {b(-1.0f), b(-tiny)}), b(-next));
  EXPECT_EQ(h.eval(with(op2(Op::mul, Type::f64), Rounding::rp), {d(1.0 / 3.0), d(3.0)}), d(1.0));
  EXPECT_EQ(h.eval(with(op2(Op::mul, Type::f64), Rounding::rz), {d(1.0 + 0x1p-52), d(1.0 + 0x1p-52)}),
            d(1.0 + 0x1p-51));
  EXPECT_EQ(h.eval(with(op2(Op::div, Type::f32), Rounding::rz), {b(1.0f), b(3.0f)}), 0x3eaaaaaau);
  EXPECT_EQ(h.eval(with(op2(Op::div, Type::f32), Rounding::rp), {b(1.0f), b(3.0f)}), 0x3eaaaaabu);
  EXPECT_EQ(h.eval(with(op3(Op::fma, Type::f32), Rounding::rn), {b(next), b(next), b(-1.0f)}),
            b(std::ldexp(1.0f, -22) + std::ldexp(1.0f, -46)));  // fused: the tiny term survives
  // The rounding mode is restored afterwards.
  EXPECT_EQ(h.eval(op2(Op::add, Type::f32), {b(1.0f), b(tiny)}), b(1.0f));
}

TEST(ExecFloat, FlushToZeroAndSaturate) {
  Harness h;
  EXPECT_EQ(h.eval(op2(Op::add, Type::f32), {b(kSub), b(0.0f)}), b(kSub));
  EXPECT_EQ(h.eval(flags(op2(Op::add, Type::f32), kFtz), {b(kSub), b(0.0f)}), b(0.0f));
  EXPECT_EQ(h.eval(flags(op2(Op::add, Type::f32), kFtz), {b(-kSub), b(-0.0f)}), b(-0.0f));
  // Output flushing: 2^-126 * 0.5 is subnormal.
  EXPECT_EQ(h.eval(flags(op2(Op::mul, Type::f32), kFtz), {b(std::ldexp(1.0f, -126)), b(0.5f)}), b(0.0f));
  EXPECT_EQ(h.eval(flags(op2(Op::add, Type::f32), kSat), {b(0.75f), b(0.5f)}), b(1.0f));
  EXPECT_EQ(h.eval(flags(op2(Op::add, Type::f32), kSat), {b(-0.75f), b(0.5f)}), b(0.0f));
  EXPECT_EQ(h.eval(flags(op2(Op::mul, Type::f32), kSat), {b(kNaN), b(1.0f)}), b(0.0f));
  EXPECT_EQ(h.eval(flags(op2(Op::add, Type::f64), kFtz), {d(1e-310), d(0.0)}), d(1e-310));  // ftz is f32 only
}

TEST(ExecFloat, MinMaxAbsNegCopysign) {
  Harness h;
  EXPECT_EQ(h.eval(op2(Op::min, Type::f32), {b(kNaN), b(2.0f)}), b(2.0f));
  EXPECT_EQ(h.eval(op2(Op::max, Type::f32), {b(3.0f), b(kNaN)}), b(3.0f));
  EXPECT_TRUE(std::isnan(f(h.eval(op2(Op::max, Type::f32), {b(kNaN), b(kNaN)}))));
  EXPECT_EQ(h.eval(op2(Op::min, Type::f32), {b(0.0f), b(-0.0f)}), b(-0.0f));
  EXPECT_EQ(h.eval(op2(Op::max, Type::f32), {b(-0.0f), b(0.0f)}), b(0.0f));
  EXPECT_EQ(h.eval(op2(Op::min, Type::f64), {d(-1.0), d(2.0)}), d(-1.0));
  EXPECT_EQ(h.eval(op1(Op::abs, Type::f32), {b(-2.5f)}), b(2.5f));
  EXPECT_EQ(h.eval(op1(Op::neg, Type::f64), {d(2.5)}), d(-2.5));
  EXPECT_EQ(h.eval(flags(op1(Op::abs, Type::f32), kFtz), {b(-kSub)}), b(0.0f));
  EXPECT_EQ(h.eval(op2(Op::copysign, Type::f32), {b(-1.0f), b(2.0f)}), b(-2.0f));
}

TEST(ExecFloat, DivisionAndSqrt) {
  Harness h;
  EXPECT_EQ(h.eval(with(op2(Op::div, Type::f32), Rounding::rn), {b(1.0f), b(0.0f)}), b(INFINITY));
  EXPECT_EQ(h.eval(with(op2(Op::div, Type::f32), Rounding::rn), {b(-1.0f), b(0.0f)}), b(-INFINITY));
  EXPECT_TRUE(std::isnan(f(h.eval(with(op2(Op::div, Type::f32), Rounding::rn), {b(0.0f), b(0.0f)}))));
  EXPECT_EQ(h.eval(flags(op2(Op::div, Type::f32), kApprox), {b(1.0f), b(4.0f)}), b(0.25f));
  EXPECT_EQ(h.eval(with(op1(Op::sqrt, Type::f32), Rounding::rn), {b(2.0f)}), 0x3fb504f3u);
  EXPECT_EQ(h.eval(with(op1(Op::sqrt, Type::f64), Rounding::rn), {d(2.0)}), d(1.4142135623730951));
  EXPECT_EQ(h.eval(with(op1(Op::rcp, Type::f32), Rounding::rn), {b(3.0f)}), 0x3eaaaaabu);
  EXPECT_TRUE(std::isnan(f(h.eval(with(op1(Op::sqrt, Type::f32), Rounding::rn), {b(-1.0f)}))));
}

// The approximate functions must lie within 1 ulp (f32) of the true value, computed here in long double.
TEST(ExecFloat, ApproxFunctionsWithinOneUlp) {
  Harness h;
  struct Case {
    Op op;
    float x;
    long double truth;
  };
  const Case cases[] = {
      {Op::sin, 1.0f, std::sin(1.0L)},
      {Op::cos, 0.5f, std::cos(0.5L)},
      {Op::ex2, 0.3f, std::exp2((long double)0.3f)},
      {Op::lg2, 10.0f, std::log2(10.0L)},
      {Op::rsqrt, 3.0f, 1.0L / std::sqrt(3.0L)},
      {Op::tanh, 0.7f, std::tanh((long double)0.7f)},
      {Op::rcp, 7.0f, 1.0L / 7.0L},
      {Op::sin, 100.0f, std::sin(100.0L)},
  };
  for (const Case& c : cases) {
    float got = f(h.eval(flags(op1(c.op, Type::f32), kApprox), {b(c.x)}));
    long double ulp = std::nextafter(float(c.truth), INFINITY) - float(c.truth);
    EXPECT_LE(std::fabs((long double)got - c.truth), ulp) << "op " << int(c.op) << " x=" << c.x;
  }
  EXPECT_EQ(h.eval(flags(op1(Op::ex2, Type::f32), kApprox), {b(3.0f)}), b(8.0f));
  EXPECT_EQ(h.eval(flags(op1(Op::lg2, Type::f32), kApprox), {b(0.0f)}), b(-INFINITY));
  EXPECT_EQ(h.eval(flags(op1(Op::ex2, Type::f32), kApprox | kFtz), {b(-140.0f)}), b(0.0f));
}

TEST(ExecFloat, CompareOrderedUnordered) {
  Harness h;
  auto setp = [&](Cmp c, float x, float y) {
    return h.eval(with(op2(Op::setp, Type::f32), c), {b(x), b(y)});
  };
  EXPECT_EQ(setp(Cmp::lt, 1.0f, 2.0f), 1u);
  EXPECT_EQ(setp(Cmp::lt, kNaN, 2.0f), 0u);
  EXPECT_EQ(setp(Cmp::ltu, kNaN, 2.0f), 1u);
  EXPECT_EQ(setp(Cmp::ne, kNaN, 2.0f), 0u);
  EXPECT_EQ(setp(Cmp::neu, kNaN, 2.0f), 1u);
  EXPECT_EQ(setp(Cmp::equ, 2.0f, 2.0f), 1u);
  EXPECT_EQ(setp(Cmp::gtu, 1.0f, 2.0f), 0u);
  EXPECT_EQ(setp(Cmp::num, 1.0f, 2.0f), 1u);
  EXPECT_EQ(setp(Cmp::num, 1.0f, kNaN), 0u);
  EXPECT_EQ(setp(Cmp::nan, kNaN, 1.0f), 1u);
  EXPECT_EQ(setp(Cmp::eq, 0.0f, -0.0f), 1u);
  EXPECT_EQ(setp(Cmp::eq, kSub, 0.0f), 0u);
  EXPECT_EQ(h.eval(flags(with(op2(Op::setp, Type::f32), Cmp::eq), kFtz), {b(kSub), b(0.0f)}), 1u);
  EXPECT_EQ(h.eval(with(op2(Op::setp, Type::f64), Cmp::ge), {d(2.0), d(2.0)}), 1u);
}

TEST(ExecFloat, Testp) {
  Harness h;
  auto t = [&](Sub s, float x) { return h.eval(with(op1(Op::testp, Type::f32), s), {b(x)}); };
  EXPECT_EQ(t(Sub::testp_subnormal, kSub), 1u);
  EXPECT_EQ(t(Sub::testp_normal, kSub), 0u);
  EXPECT_EQ(t(Sub::testp_finite, INFINITY), 0u);
  EXPECT_EQ(t(Sub::testp_infinite, -INFINITY), 1u);
  EXPECT_EQ(t(Sub::testp_notanumber, kNaN), 1u);
  EXPECT_EQ(t(Sub::testp_number, kNaN), 0u);
  EXPECT_EQ(t(Sub::testp_normal, 1.0f), 1u);
}

}  // namespace
}  // namespace simtlm::ptx
