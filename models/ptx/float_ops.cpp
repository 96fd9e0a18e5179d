// Software rounding into binary floating-point formats, exact for every rounding mode.
#include "models/ptx/float_ops.hpp"

#include <bit>

namespace simtlm::ptx::exec {

uint64_t round_to_format(bool neg, uint64_t mag, int exp, bool sticky, FloatFormat fmt, Rounding mode,
                         bool ftz) {
  const uint64_t sign = uint64_t(neg) << (fmt.exp_bits + fmt.man_bits);
  if (mag == 0) return sign;
  const int bias = (1 << (fmt.exp_bits - 1)) - 1;
  const int emin = 1 - bias;
  const int max_biased = (1 << fmt.exp_bits) - 1;
  const int msb = 63 - std::countl_zero(mag);
  const int e = msb + exp;                            // unbiased exponent of the leading bit
  int q = (e > emin ? e : emin) - int(fmt.man_bits);  // exponent of the result's last bit
  int shift = q - exp;
  uint64_t kept;
  if (shift <= 0) {
    kept = mag << (-shift);
  } else {
    uint64_t rest = shift >= 64 ? mag : mag & ((uint64_t{1} << shift) - 1);
    kept = shift >= 64 ? 0 : mag >> shift;
    uint64_t half = shift > 64 ? 0 : uint64_t{1} << (shift - 1);
    bool inexact = rest != 0 || sticky;
    bool up = false;
    switch (mode) {
      case Rounding::rz:
        break;
      case Rounding::rp:
        up = !neg && inexact;
        break;
      case Rounding::rm:
        up = neg && inexact;
        break;
      default:  // round to nearest, ties to even
        if (shift > 64) {
          up = false;  // value is below half of the last place
        } else {
          up = rest > half || (rest == half && (sticky || (kept & 1)));
        }
        break;
    }
    kept += up;
  }
  if (kept >> (fmt.man_bits + 1)) {  // rounding carried into a new leading bit
    kept >>= 1;
    ++q;
  }
  const uint64_t frac_mask = (uint64_t{1} << fmt.man_bits) - 1;
  bool normal = (kept >> fmt.man_bits) != 0;
  int biased = normal ? q + int(fmt.man_bits) + bias : 0;
  if (biased >= max_biased) {
    bool to_inf = mode == Rounding::rn || mode == Rounding::none || (mode == Rounding::rp && !neg) ||
                  (mode == Rounding::rm && neg);
    uint64_t inf = uint64_t(max_biased) << fmt.man_bits;
    return sign | (to_inf ? inf : inf - 1);
  }
  if (!normal && ftz && kept != 0) return sign;
  return sign | (uint64_t(biased) << fmt.man_bits) | (kept & frac_mask);
}

double decode_small_float(uint64_t bits, FloatFormat fmt) {
  const uint64_t frac = bits & ((uint64_t{1} << fmt.man_bits) - 1);
  const unsigned biased = unsigned(bits >> fmt.man_bits) & ((1u << fmt.exp_bits) - 1);
  const bool neg = (bits >> (fmt.exp_bits + fmt.man_bits)) & 1;
  const int bias = (1 << (fmt.exp_bits - 1)) - 1;
  double v;
  if (biased == (1u << fmt.exp_bits) - 1) {
    v = frac ? std::nan("") : INFINITY;
  } else if (biased == 0) {
    v = std::ldexp(double(frac), 1 - bias - int(fmt.man_bits));
  } else {
    v = std::ldexp(double(frac | (uint64_t{1} << fmt.man_bits)), int(biased) - bias - int(fmt.man_bits));
  }
  return neg ? -v : v;
}

uint64_t double_to_format(double d, FloatFormat fmt, Rounding mode, bool ftz) {
  const uint64_t sign = uint64_t(std::signbit(d)) << (fmt.exp_bits + fmt.man_bits);
  if (std::isnan(d)) return canonical_nan(fmt);
  if (std::isinf(d)) return sign | (((uint64_t{1} << fmt.exp_bits) - 1) << fmt.man_bits);
  if (d == 0) return sign;
  int e;
  double m = std::frexp(std::fabs(d), &e);     // d = m * 2^e, m in [0.5, 1)
  uint64_t mag = uint64_t(std::ldexp(m, 53));  // exact: 53 significant bits
  return round_to_format(std::signbit(d), mag, e - 53, false, fmt, mode, ftz);
}

}  // namespace simtlm::ptx::exec
