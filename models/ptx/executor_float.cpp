// Floating-point arithmetic (f32, f64): IEEE host arithmetic for .rn, the host rounding mode for .rz/.rm/.rp,
// flush-to-zero emulation for .ftz and clamping for .sat.
//
// .approx functions are computed in double with the host's libm and rounded to the destination type. libm's
// double results are within 1 ulp of double, so the f32 result is within 0.5 ulp + 2^-29 ulp of the true
// value: at most 1 ulp of f32 (the hardware's documented bounds are 2 ulp and larger, so this is always
// inside them).
#include <cmath>
#include <limits>

#include "models/ptx/executor_internal.hpp"
#include "models/ptx/float_ops.hpp"

namespace simtlm::ptx::exec {
namespace {

template <class T>
T from_bits(uint64_t v) {
  if constexpr (sizeof(T) == 4)
    return f32_of(v);
  else
    return f64_of(v);
}
template <class T>
uint64_t to_bits(T v) {
  if constexpr (sizeof(T) == 4)
    return bits_of_f32(v);
  else
    return bits_of_f64(v);
}

// PTX min/max: a NaN operand is ignored; both NaN gives the canonical NaN; -0 is below +0.
template <class T>
T fmin_ptx(T a, T b) {
  if (std::isnan(a)) return std::isnan(b) ? std::numeric_limits<T>::quiet_NaN() : b;
  if (std::isnan(b)) return a;
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
template <class T>
T fmax_ptx(T a, T b) {
  if (std::isnan(a)) return std::isnan(b) ? std::numeric_limits<T>::quiet_NaN() : b;
  if (std::isnan(b)) return a;
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

// The approximate special functions: evaluated in double, then rounded once to T.
template <class T>
T approx(Op op, T x) {
  double d = double(x);
  switch (op) {
    case Op::sqrt:
      return T(std::sqrt(d));
    case Op::rsqrt:
      return T(1.0 / std::sqrt(d));
    case Op::rcp:
      return T(1.0 / d);
    case Op::ex2:
      return T(std::exp2(d));
    case Op::lg2:
      return T(std::log2(d));
    case Op::sin:
      return T(std::sin(d));
    case Op::cos:
      return T(std::cos(d));
    case Op::tanh:
      return T(std::tanh(d));
    default:
      return x;
  }
}

template <class T>
bool testp(Sub s, T x) {
  switch (s) {
    case Sub::testp_finite:
      return std::isfinite(x);
    case Sub::testp_infinite:
      return std::isinf(x);
    case Sub::testp_number:
      return !std::isnan(x);
    case Sub::testp_notanumber:
      return std::isnan(x);
    case Sub::testp_normal:
      return std::isnormal(x);
    case Sub::testp_subnormal:
      return std::fpclassify(x) == FP_SUBNORMAL;
    default:
      return false;
  }
}

template <class T>
void run_float(Ctx& c) {
  const Instr& in = c.in;
  const bool ftz = sizeof(T) == 4 && (in.flags & kFtz) != 0;
  const bool sat = (in.flags & kSat) != 0;
  uint64_t b0[kWarpSize], b1[kWarpSize], b2[kWarpSize];
  const uint64_t* a = in.nsrc > 0 ? operand_values(c, in.src[0], b0) : nullptr;
  const uint64_t* b = in.nsrc > 1 ? operand_values(c, in.src[1], b1) : nullptr;
  const uint64_t* cc = in.nsrc > 2 ? operand_values(c, in.src[2], b2) : nullptr;
  uint64_t* out = reg_row(c.warp, in.dst[0].reg);
  auto arg = [&](const uint64_t* v, unsigned l) {
    T x = from_bits<T>(v[l]);
    return ftz ? flush(x) : x;
  };
  auto finish = [&](T r) {
    if (ftz) r = flush(r);
    if (sat) r = (std::isnan(r) || r <= T(0)) ? T(0) : (r > T(1) ? T(1) : r);  // NaN and -0 give +0
    return to_bits(r);
  };
  // Round to nearest with neither .ftz nor .sat (nearly every instruction of the workloads): the host's
  // default mode computes the same bits without barriers, in a loop the compiler may vectorize.
  const bool directed = in.rnd != Rounding::none && in.rnd != Rounding::rn && in.rnd != Rounding::rni;
  if (!ftz && !sat && !directed) {
    auto plain = [&](auto&& f) { for_lanes(c.active, [&](unsigned l) { out[l] = to_bits(f(l)); }); };
    switch (in.op) {
      case Op::add:
        return plain([&](unsigned l) { return from_bits<T>(a[l]) + from_bits<T>(b[l]); });
      case Op::sub:
        return plain([&](unsigned l) { return from_bits<T>(a[l]) - from_bits<T>(b[l]); });
      case Op::mul:
        return plain([&](unsigned l) { return from_bits<T>(a[l]) * from_bits<T>(b[l]); });
      case Op::fma:
      case Op::mad:
        return plain([&](unsigned l) {
          return std::fma(from_bits<T>(a[l]), from_bits<T>(b[l]), from_bits<T>(cc[l]));
        });
      default:
        break;
    }
  }
  // A directed rounding mode applies to the whole loop; the opaque() barriers keep each operation inside it.
  RoundingScope scope(in.rnd);
  auto each = [&](auto&& f) { for_lanes(c.active, [&](unsigned l) { out[l] = finish(opaque(f(l))); }); };
  switch (in.op) {
    case Op::add:
      return each([&](unsigned l) { return opaque(arg(a, l)) + opaque(arg(b, l)); });
    case Op::sub:
      return each([&](unsigned l) { return opaque(arg(a, l)) - opaque(arg(b, l)); });
    case Op::mul:
      return each([&](unsigned l) { return opaque(arg(a, l)) * opaque(arg(b, l)); });
    case Op::fma:
    case Op::mad:  // mad.rnd.f32/f64 is fused on every target we model
      return each(
          [&](unsigned l) { return std::fma(opaque(arg(a, l)), opaque(arg(b, l)), opaque(arg(cc, l))); });
    case Op::div:
      if (in.flags & (kApprox | kFull)) {
        // div.approx/div.full are specified within 2 ulp; the correctly rounded quotient satisfies that.
        return each([&](unsigned l) { return T(double(arg(a, l)) / double(arg(b, l))); });
      }
      return each([&](unsigned l) { return opaque(arg(a, l)) / opaque(arg(b, l)); });
    case Op::abs:
      return each([&](unsigned l) { return std::fabs(arg(a, l)); });
    case Op::neg:
      return each([&](unsigned l) { return -arg(a, l); });
    case Op::min:
      return each([&](unsigned l) { return fmin_ptx(arg(a, l), arg(b, l)); });
    case Op::max:
      return each([&](unsigned l) { return fmax_ptx(arg(a, l), arg(b, l)); });
    case Op::copysign:  // d = b with the sign of a
      return each([&](unsigned l) { return std::copysign(from_bits<T>(b[l]), from_bits<T>(a[l])); });
    case Op::sqrt:
      if (in.flags & kApprox) return each([&](unsigned l) { return approx(Op::sqrt, arg(a, l)); });
      return each([&](unsigned l) { return std::sqrt(opaque(arg(a, l))); });
    case Op::rcp:
      if (in.flags & kApprox) return each([&](unsigned l) { return approx(Op::rcp, arg(a, l)); });
      return each([&](unsigned l) { return T(1) / opaque(arg(a, l)); });
    case Op::rsqrt:
    case Op::ex2:
    case Op::lg2:
    case Op::sin:
    case Op::cos:
    case Op::tanh: {
      const Op op = in.op;
      return each([&](unsigned l) { return approx(op, arg(a, l)); });
    }
    case Op::testp: {
      const Sub s = in.sub;
      for_lanes(c.active, [&](unsigned l) { out[l] = testp(s, from_bits<T>(a[l])); });
      return;
    }
    default:
      fail(c, -1, "unsupported floating-point instruction");
  }
}

}  // namespace

void exec_float(Ctx& c) {
  switch (c.in.type) {
    case Type::f32:
      return run_float<float>(c);
    case Type::f64:
      return run_float<double>(c);
    default:
      fail(c, -1, "floating-point arithmetic on this type is not supported (f32 and f64 are)");
  }
}

}  // namespace simtlm::ptx::exec
