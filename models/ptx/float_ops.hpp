// Floating-point helpers of the functional model: flush-to-zero, rounding-mode scopes and an exact software
// rounding of a real value into any binary format (used for f16/bf16 and directed conversions).
#pragma once

#include <cfenv>
#include <cmath>
#include <cstdint>

#include "models/ptx/ir.hpp"

namespace simtlm::ptx::exec {

// Keeps the compiler from folding or moving a floating-point value across a rounding-mode change.
template <class T>
inline T opaque(T v) {
  asm volatile("" : "+x"(v));
  return v;
}

inline float flush(float f) {
  return std::fpclassify(f) == FP_SUBNORMAL ? std::copysign(0.0f, f) : f;
}
inline double flush(double d) {
  return std::fpclassify(d) == FP_SUBNORMAL ? std::copysign(0.0, d) : d;
}

// Sets the host rounding mode for the lifetime of the scope when the instruction asks for a directed one.
class RoundingScope {
 public:
  explicit RoundingScope(Rounding r) {
    int mode = FE_TONEAREST;
    switch (r) {
      case Rounding::rz:
      case Rounding::rzi:
        mode = FE_TOWARDZERO;
        break;
      case Rounding::rm:
      case Rounding::rmi:
        mode = FE_DOWNWARD;
        break;
      case Rounding::rp:
      case Rounding::rpi:
        mode = FE_UPWARD;
        break;
      default:
        break;
    }
    if (mode != FE_TONEAREST) {
      saved_ = std::fegetround();
      std::fesetround(mode);
      changed_ = true;
    }
  }
  ~RoundingScope() {
    if (changed_) std::fesetround(saved_);
  }
  RoundingScope(const RoundingScope&) = delete;
  RoundingScope& operator=(const RoundingScope&) = delete;

 private:
  int saved_ = FE_TONEAREST;
  bool changed_ = false;
};

struct FloatFormat {
  unsigned exp_bits;
  unsigned man_bits;  // explicit fraction bits
};
inline constexpr FloatFormat kF16{5, 10};
inline constexpr FloatFormat kBF16{8, 7};
inline constexpr FloatFormat kF32{8, 23};
inline constexpr FloatFormat kF64{11, 52};

// Rounds (-1)^neg * mag * 2^exp (plus a nonzero tail below mag's last bit when sticky) into fmt.
// mode is rn/rz/rm/rp (none = rn). Returns the format's bits. ftz flushes a subnormal result to zero.
uint64_t round_to_format(bool neg, uint64_t mag, int exp, bool sticky, FloatFormat fmt, Rounding mode,
                         bool ftz);
// Exact decoding of an f16/bf16/f32 bit pattern to double.
double decode_small_float(uint64_t bits, FloatFormat fmt);
// Rounds a double into fmt (NaN -> canonical NaN, infinities and signed zeros preserved).
uint64_t double_to_format(double d, FloatFormat fmt, Rounding mode, bool ftz);
// Canonical NaN bit patterns used by the hardware.
inline constexpr uint64_t canonical_nan(FloatFormat fmt) {
  return fmt.exp_bits == 11 ? 0x7fffffffffffffffull : (uint64_t{1} << (fmt.exp_bits + fmt.man_bits)) - 1;
}

}  // namespace simtlm::ptx::exec
