// cvt between integer and float types, with every rounding mode, saturation and f16/bf16.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "testbenches/unit/ir_builder.hpp"

namespace simtlm::ptx {
namespace {

using namespace build;

Instr cvt(Type dst, Type src, Rounding r = Rounding::none, uint16_t f = 0) {
  return flags(with(type2(I(Op::cvt, dst, {R(0)}, {R(1)}), src), r), f);
}
uint64_t b(float f) {
  return std::bit_cast<uint32_t>(f);
}
uint64_t d(double x) {
  return std::bit_cast<uint64_t>(x);
}
const float kNaN = std::numeric_limits<float>::quiet_NaN();

TEST(ExecCvt, IntegerExtendTruncateSaturate) {
  Harness h;
  EXPECT_EQ(h.eval(cvt(Type::s32, Type::s8), {0x80}), 0xffffff80u);
  EXPECT_EQ(h.eval(cvt(Type::u32, Type::u8), {0x1ff}), 0xffu);
  EXPECT_EQ(h.eval(cvt(Type::s64, Type::s32), {0xfffffffeu}), uint64_t(-2));
  EXPECT_EQ(h.eval(cvt(Type::u64, Type::s32), {0xfffffffeu}), uint64_t(-2));  // sign extends the source
  EXPECT_EQ(h.eval(cvt(Type::u64, Type::u32), {0xfffffffeu}), 0xfffffffeu);
  EXPECT_EQ(h.eval(cvt(Type::u16, Type::u32), {0x12345}), 0x2345u);
  EXPECT_EQ(h.eval(cvt(Type::u8, Type::s32, Rounding::none, kSat), {0xffffffffu}), 0u);
  EXPECT_EQ(h.eval(cvt(Type::s8, Type::s32, Rounding::none, kSat), {1000}), 0x7fu);
  EXPECT_EQ(h.eval(cvt(Type::s8, Type::s32, Rounding::none, kSat), {uint64_t(-1000) & 0xffffffffu}), 0x80u);
  EXPECT_EQ(h.eval(cvt(Type::s32, Type::u32, Rounding::none, kSat), {0x80000000u}), 0x7fffffffu);
  EXPECT_EQ(h.eval(cvt(Type::u32, Type::s64, Rounding::none, kSat), {1ull << 40}), 0xffffffffu);
}

TEST(ExecCvt, FloatToIntRoundingAndSaturation) {
  Harness h;
  EXPECT_EQ(h.eval(cvt(Type::s32, Type::f32, Rounding::rni), {b(2.5f)}), 2u);
  EXPECT_EQ(h.eval(cvt(Type::s32, Type::f32, Rounding::rni), {b(3.5f)}), 4u);
  EXPECT_EQ(h.eval(cvt(Type::s32, Type::f32, Rounding::rzi), {b(-2.7f)}), uint64_t(-2) & 0xffffffffu);
  EXPECT_EQ(h.eval(cvt(Type::s32, Type::f32, Rounding::rmi), {b(-2.1f)}), uint64_t(-3) & 0xffffffffu);
  EXPECT_EQ(h.eval(cvt(Type::s32, Type::f32, Rounding::rpi), {b(2.1f)}), 3u);
  EXPECT_EQ(h.eval(cvt(Type::s32, Type::f32, Rounding::rzi), {b(3e9f)}), 0x7fffffffu);
  EXPECT_EQ(h.eval(cvt(Type::s32, Type::f32, Rounding::rzi), {b(-3e9f)}), 0x80000000u);
  EXPECT_EQ(h.eval(cvt(Type::u32, Type::f32, Rounding::rzi), {b(-1.0f)}), 0u);
  EXPECT_EQ(h.eval(cvt(Type::u32, Type::f32, Rounding::rzi), {b(kNaN)}), 0u);
  EXPECT_EQ(h.eval(cvt(Type::s32, Type::f32, Rounding::rzi), {b(INFINITY)}), 0x7fffffffu);
  EXPECT_EQ(h.eval(cvt(Type::u64, Type::f64, Rounding::rzi), {d(1e30)}), ~0ull);
  EXPECT_EQ(h.eval(cvt(Type::s64, Type::f64, Rounding::rzi), {d(-1e30)}), 1ull << 63);
  EXPECT_EQ(h.eval(cvt(Type::u8, Type::f32, Rounding::rni), {b(300.0f)}), 0xffu);
  EXPECT_EQ(h.eval(cvt(Type::s32, Type::f32, Rounding::rpi), {b(1e-40f)}), 1u);
  EXPECT_EQ(h.eval(cvt(Type::s32, Type::f32, Rounding::rpi, kFtz), {b(1e-40f)}), 0u);
  EXPECT_EQ(h.eval(cvt(Type::s32, Type::f16, Rounding::rzi), {0xc500}), uint64_t(-5) & 0xffffffffu);  // -5.0
}

TEST(ExecCvt, IntToFloatRounding) {
  Harness h;
  const uint64_t big = (1u << 24) + 1;  // not representable in f32
  EXPECT_EQ(h.eval(cvt(Type::f32, Type::u32, Rounding::rn), {big}), b(16777216.0f));
  EXPECT_EQ(h.eval(cvt(Type::f32, Type::u32, Rounding::rp), {big}), b(16777218.0f));
  EXPECT_EQ(h.eval(cvt(Type::f32, Type::s32, Rounding::rm), {uint64_t(-int64_t(big)) & 0xffffffffu}),
            b(-16777218.0f));
  EXPECT_EQ(h.eval(cvt(Type::f32, Type::s32, Rounding::rz), {uint64_t(-int64_t(big)) & 0xffffffffu}),
            b(-16777216.0f));
  EXPECT_EQ(h.eval(cvt(Type::f64, Type::u64, Rounding::rn), {~0ull}), d(18446744073709551616.0));
  EXPECT_EQ(h.eval(cvt(Type::f64, Type::u64, Rounding::rz), {~0ull}), d(18446744073709549568.0));
  EXPECT_EQ(h.eval(cvt(Type::f64, Type::s64, Rounding::rn), {1ull << 63}), d(-9223372036854775808.0));
  EXPECT_EQ(h.eval(cvt(Type::f16, Type::s32, Rounding::rn), {2049}), 0x6800u);   // 2048: tie to even
  EXPECT_EQ(h.eval(cvt(Type::f16, Type::s32, Rounding::rn), {70000}), 0x7c00u);  // overflow to inf
  EXPECT_EQ(h.eval(cvt(Type::f16, Type::s32, Rounding::rz), {70000}), 0x7bffu);  // max finite
  EXPECT_EQ(h.eval(cvt(Type::bf16, Type::u32, Rounding::rn), {257}), 0x4380u);   // 256
}

TEST(ExecCvt, FloatToFloat) {
  Harness h;
  EXPECT_EQ(h.eval(cvt(Type::f32, Type::f64, Rounding::rn), {d(0.1)}), b(0.1f));
  EXPECT_EQ(h.eval(cvt(Type::f32, Type::f64, Rounding::rz), {d(0.1)}), b(0.1f) - 1);  // 0.1f rounds up
  EXPECT_EQ(h.eval(cvt(Type::f32, Type::f64, Rounding::rn), {d(1e300)}), b(INFINITY));
  EXPECT_EQ(h.eval(cvt(Type::f32, Type::f64, Rounding::rz), {d(1e300)}), 0x7f7fffffu);
  EXPECT_EQ(h.eval(cvt(Type::f32, Type::f64, Rounding::rn, kFtz), {d(1e-40)}), b(0.0f));
  EXPECT_EQ(h.eval(cvt(Type::f32, Type::f64, Rounding::rn), {d(1e-40)}), b(1e-40f));
  EXPECT_EQ(h.eval(cvt(Type::f64, Type::f32), {b(0.1f)}), d(double(0.1f)));
  EXPECT_EQ(h.eval(cvt(Type::f32, Type::f16), {0x3c00}), b(1.0f));
  EXPECT_EQ(h.eval(cvt(Type::f32, Type::f16), {0x0001}), b(std::ldexp(1.0f, -24)));    // f16 subnormal
  EXPECT_EQ(h.eval(cvt(Type::f16, Type::f32, Rounding::rn), {b(65520.0f)}), 0x7c00u);  // rounds to inf
  EXPECT_EQ(h.eval(cvt(Type::f16, Type::f32, Rounding::rn), {b(std::ldexp(1.0f, -25))}), 0u);  // tie to 0
  EXPECT_EQ(h.eval(cvt(Type::f16, Type::f32, Rounding::rp), {b(std::ldexp(1.0f, -30))}), 1u);
  EXPECT_EQ(h.eval(cvt(Type::f16, Type::f32, Rounding::rn), {b(kNaN)}), 0x7fffu);
  EXPECT_EQ(h.eval(cvt(Type::bf16, Type::f32, Rounding::rn), {0x3f808000u}), 0x3f80u);  // tie to even
  EXPECT_EQ(h.eval(cvt(Type::bf16, Type::f32, Rounding::rn), {0x3f818000u}), 0x3f82u);
  EXPECT_EQ(h.eval(cvt(Type::f32, Type::bf16), {0xc040}), b(-3.0f));
  EXPECT_EQ(h.eval(cvt(Type::f32, Type::f32, Rounding::rni), {b(2.5f)}), b(2.0f));
  EXPECT_EQ(h.eval(cvt(Type::f32, Type::f32, Rounding::rpi), {b(-0.5f)}), b(-0.0f));
  EXPECT_EQ(h.eval(cvt(Type::f32, Type::f32, Rounding::none, kSat), {b(1.5f)}), b(1.0f));
  EXPECT_EQ(h.eval(cvt(Type::f32, Type::f32, Rounding::none, kSat), {b(kNaN)}), b(0.0f));
  EXPECT_EQ(h.eval(cvt(Type::f32, Type::f32, Rounding::none, kFtz), {b(-1e-40f)}), b(-0.0f));
  EXPECT_EQ(h.eval(cvt(Type::f64, Type::f64, Rounding::rmi), {d(-1.5)}), d(-2.0));
}

}  // namespace
}  // namespace simtlm::ptx
