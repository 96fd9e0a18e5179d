// cvt between every integer and float type (f16, bf16, f32, f64). Float results are rounded in software from
// the exact source value, so every rounding mode and the f16/bf16 formats are exact.
#include <cmath>

#include "models/ptx/executor_internal.hpp"
#include "models/ptx/float_ops.hpp"

namespace simtlm::ptx::exec {
namespace {

using s128 = __int128;

bool format_of(Type t, FloatFormat* fmt) {
  switch (t) {
    case Type::f16:
      *fmt = kF16;
      return true;
    case Type::bf16:
      *fmt = kBF16;
      return true;
    case Type::f32:
      *fmt = kF32;
      return true;
    case Type::f64:
      *fmt = kF64;
      return true;
    default:
      return false;
  }
}

// The exact value of a float register as double; f32 inputs honour .ftz.
double float_in(uint64_t v, Type t, bool ftz) {
  switch (t) {
    case Type::f64:
      return f64_of(v);
    case Type::f32: {
      float f = f32_of(v);
      return ftz ? flush(f) : f;
    }
    case Type::f16:
      return decode_small_float(v & 0xffff, kF16);
    default:
      return decode_small_float(v & 0xffff, kBF16);
  }
}

double round_integral(double x, Rounding r) {
  switch (r) {
    case Rounding::rzi:
      return std::trunc(x);
    case Rounding::rmi:
      return std::floor(x);
    case Rounding::rpi:
      return std::ceil(x);
    default:
      return std::nearbyint(x);  // rni (and none): the default mode is round-half-even
  }
}

Rounding float_mode(Rounding r) {
  switch (r) {
    case Rounding::rz:
      return Rounding::rz;
    case Rounding::rm:
      return Rounding::rm;
    case Rounding::rp:
      return Rounding::rp;
    default:
      return Rounding::rn;
  }
}

void int_range(Type t, s128* lo, s128* hi) {
  unsigned bits = type_bits(t);
  if (type_is_signed(t)) {
    *lo = -(s128(1) << (bits - 1));
    *hi = (s128(1) << (bits - 1)) - 1;
  } else {
    *lo = 0;
    *hi = (s128(1) << bits) - 1;
  }
}

// Float to integer always saturates to the destination range; NaN gives 0.
uint64_t float_to_int(double x, Type dst, Rounding r) {
  if (std::isnan(x)) return 0;
  s128 lo, hi;
  int_range(dst, &lo, &hi);
  double y = round_integral(x, r);
  // 2^64 and -2^63 bound every destination; beyond them the clamp below decides.
  s128 v;
  if (y >= 18446744073709551616.0) {
    v = hi;
  } else if (y < -9223372036854775808.0) {
    v = lo;
  } else if (y >= 0) {
    v = s128(uint64_t(y));
  } else {
    v = s128(int64_t(y));
  }
  if (v < lo) v = lo;
  if (v > hi) v = hi;
  return uint64_t(v) & low_mask(type_bits(dst));
}

}  // namespace

void exec_cvt(Ctx& c) {
  const Instr& in = c.in;
  const Type dst = in.type, src = in.type2;
  const bool ftz = (in.flags & kFtz) != 0;
  const bool sat = (in.flags & kSat) != 0;
  uint64_t buf[kWarpSize];
  const uint64_t* a = operand_values(c, in.src[0], buf);
  uint64_t* out = reg_row(c.warp, in.dst[0].reg);
  FloatFormat dfmt{}, sfmt{};
  const bool dst_float = format_of(dst, &dfmt);
  const bool src_float = format_of(src, &sfmt);
  if ((type_is_float(dst) && !dst_float) || (type_is_float(src) && !src_float)) {
    fail(c, -1, "cvt with packed f16x2/bf16x2 types is not supported");
  }
  const unsigned dbits = type_bits(dst);
  if (!dst_float && !src_float) {
    s128 lo, hi;
    int_range(dst, &lo, &hi);
    const bool ssrc = type_is_signed(src);
    for_lanes(c.active, [&](unsigned l) {
      uint64_t v = as_type(a[l], src);
      if (sat) {
        s128 w = ssrc ? s128(int64_t(v)) : s128(v);
        v = uint64_t(w < lo ? lo : (w > hi ? hi : w));
      }
      out[l] = v & low_mask(dbits);
    });
    return;
  }
  if (!dst_float) {
    const Rounding r = in.rnd;
    for_lanes(c.active, [&](unsigned l) { out[l] = float_to_int(float_in(a[l], src, ftz), dst, r); });
    return;
  }
  const Rounding mode = float_mode(in.rnd);
  const bool dst_ftz = ftz && dst == Type::f32;
  if (!src_float) {
    const bool ssrc = type_is_signed(src);
    for_lanes(c.active, [&](unsigned l) {
      uint64_t v = as_type(a[l], src);
      bool neg = ssrc && int64_t(v) < 0;
      uint64_t mag = neg ? 0 - v : v;
      if (sat) {  // clamp to [0, 1]: only 0 and 1 (and above) matter for an integer
        neg = false;
        if (ssrc && int64_t(v) < 0) mag = 0;
        if (mag > 1) mag = 1;
      }
      out[l] = round_to_format(neg, mag, 0, false, dfmt, mode, dst_ftz);
    });
    return;
  }
  const bool integral = in.rnd == Rounding::rni || in.rnd == Rounding::rzi || in.rnd == Rounding::rmi ||
                        in.rnd == Rounding::rpi;
  const Rounding ir = in.rnd;
  for_lanes(c.active, [&](unsigned l) {
    double x = float_in(a[l], src, ftz && src == Type::f32);
    if (integral && std::isfinite(x)) x = std::copysign(round_integral(x, ir), x);
    if (sat) x = (std::isnan(x) || x <= 0) ? 0.0 : (x > 1 ? 1.0 : x);
    if (src == Type::f64 && dst == Type::f64) {
      out[l] = std::isnan(x) ? a[l] : bits_of_f64(x);
      return;
    }
    out[l] = double_to_format(x, dfmt, mode, dst_ftz);
  });
}

}  // namespace simtlm::ptx::exec
