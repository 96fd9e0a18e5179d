// Integer arithmetic, logic and bit manipulation. Values are computed in 64 bits after zero- or
// sign-extending the operands from the instruction type's width, then truncated to that width (or twice it
// for .wide).
#include <algorithm>
#include <limits>

#include "models/ptx/executor_internal.hpp"

namespace simtlm::ptx::exec {
namespace {

using u128 = unsigned __int128;
using s128 = __int128;

// Division as the hardware does it: PTX leaves x/0 to the implementation. Unsigned x/0 = all ones and
// x%0 = x. Signed division divides magnitudes and then fixes the sign, so x/0 = -1 for x >= 0 and 1 for
// x < 0; x%0 = x. INT_MIN/-1 = INT_MIN and INT_MIN%-1 = 0 (the wrapped two's complement result).
uint64_t int_div(uint64_t a, uint64_t b, unsigned bits, bool is_signed, bool rem) {
  uint64_t m = low_mask(bits);
  if (!is_signed) {
    a &= m;
    b &= m;
    if (b == 0) return rem ? a : m;
    return rem ? a % b : a / b;
  }
  int64_t x = sign_extend(a, bits), y = sign_extend(b, bits);
  if (y == 0) return rem ? uint64_t(x) & m : (x >= 0 ? m : 1);
  if (y == -1) return rem ? 0 : (uint64_t(0) - uint64_t(x)) & m;  // wraps INT_MIN to itself
  return uint64_t(rem ? x % y : x / y) & m;
}

uint64_t saturate_s32(int64_t v) {
  v = std::clamp<int64_t>(v, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
  return uint64_t(v) & 0xffffffffu;
}

// High half of the 2*bits-wide product.
uint64_t mul_hi(uint64_t a, uint64_t b, unsigned bits, bool is_signed) {
  if (bits == 64) {
    if (is_signed) return uint64_t(u128(s128(int64_t(a)) * s128(int64_t(b))) >> 64);
    return uint64_t((u128(a) * u128(b)) >> 64);
  }
  if (is_signed) return uint64_t((sign_extend(a, bits) * sign_extend(b, bits)) >> bits) & low_mask(bits);
  return (((a & low_mask(bits)) * (b & low_mask(bits))) >> bits) & low_mask(bits);
}

uint32_t byte_of(uint64_t pair, unsigned index, bool sign_replicate) {
  uint32_t byte = uint32_t(pair >> (8 * (index & 7))) & 0xff;
  if (sign_replicate) return (byte & 0x80) ? 0xff : 0;
  return byte;
}

// prmt: a provides bytes 0-3 and b bytes 4-7 of the source pair.
uint32_t prmt(uint32_t a, uint32_t b, uint32_t c, Sub mode) {
  uint64_t pair = (uint64_t(b) << 32) | a;
  if (mode == Sub::none) {
    uint32_t r = 0;
    for (unsigned i = 0; i < 4; ++i) {
      unsigned sel = (c >> (4 * i)) & 0xf;
      r |= byte_of(pair, sel & 7, (sel & 8) != 0) << (8 * i);
    }
    return r;
  }
  // Selectors of d.b0..d.b3 for each mode and c[1:0], from the PTX ISA prmt table (written b3 b2 b1 b0
  // there).
  static constexpr uint8_t kTable[6][4][4] = {
      {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}},  // f4e
      {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}},  // b4e
      {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}},  // rc8
      {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}},  // ecl
      {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}},  // ecr
      {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}},  // rc16
  };
  unsigned m = unsigned(mode) - unsigned(Sub::prmt_f4e);
  uint32_t r = 0;
  for (unsigned i = 0; i < 4; ++i) r |= byte_of(pair, kTable[m][c & 3][i], false) << (8 * i);
  return r;
}

uint64_t bfe(uint64_t a, uint32_t pos, uint32_t len, unsigned bits, bool is_signed) {
  unsigned msb = bits - 1;
  pos &= 0xff;
  len &= 0xff;
  bool fill = false;
  if (is_signed && len != 0) {
    unsigned sbit = std::min(pos + len - 1, msb);
    fill = (a >> sbit) & 1;
  }
  uint64_t d = 0;
  for (unsigned i = 0; i <= msb; ++i) {
    bool bit = (i < len && pos + i <= msb) ? ((a >> (pos + i)) & 1) : fill;
    d |= uint64_t(bit) << i;
  }
  return d;
}

uint64_t bfi(uint64_t a, uint64_t b, uint32_t pos, uint32_t len, unsigned bits) {
  pos &= 0xff;
  len &= 0xff;
  uint64_t d = b;
  for (unsigned i = 0; i < len && pos + i < bits; ++i) {
    d = (d & ~(uint64_t{1} << (pos + i))) | (((a >> i) & 1) << (pos + i));
  }
  return d & low_mask(bits);
}

uint64_t lop3(uint64_t a, uint64_t b, uint64_t c, unsigned lut) {
  uint64_t r = 0;
  for (unsigned i = 0; i < 8; ++i) {
    if (!((lut >> i) & 1)) continue;
    r |= ((i & 4) ? a : ~a) & ((i & 2) ? b : ~b) & ((i & 1) ? c : ~c);
  }
  return r;
}

uint64_t bfind(uint64_t a, unsigned bits, bool is_signed, bool shiftamt) {
  a &= low_mask(bits);
  if (is_signed && ((a >> (bits - 1)) & 1)) a = ~a & low_mask(bits);
  if (a == 0) return 0xffffffffu;
  unsigned pos = 63 - unsigned(std::countl_zero(a));
  return shiftamt ? (bits - 1 - pos) : pos;
}

uint64_t brev(uint64_t a, unsigned bits) {
  uint64_t r = 0;
  for (unsigned i = 0; i < bits; ++i) r |= ((a >> i) & 1) << (bits - 1 - i);
  return r;
}

// 24-bit multiply: operands are the low 24 bits (sign- or zero-extended), the product has 48 bits.
uint64_t mul24(uint64_t a, uint64_t b, bool is_signed, bool hi) {
  int64_t x = is_signed ? sign_extend(a, 24) : int64_t(a & 0xffffff);
  int64_t y = is_signed ? sign_extend(b, 24) : int64_t(b & 0xffffff);
  uint64_t p = uint64_t(x * y);
  return (hi ? (p >> 16) : p) & 0xffffffffu;
}

}  // namespace

void exec_int(Ctx& c) {
  const Instr& in = c.in;
  const Type t = in.type;
  const unsigned bits = type_bits(t);
  const bool sgn = type_is_signed(t);
  const uint64_t m = low_mask(bits);
  uint64_t b0[kWarpSize], b1[kWarpSize], b2[kWarpSize], b3[kWarpSize];
  const uint64_t* a = in.nsrc > 0 ? operand_values(c, in.src[0], b0) : nullptr;
  const uint64_t* b = in.nsrc > 1 ? operand_values(c, in.src[1], b1) : nullptr;
  const uint64_t* cc = in.nsrc > 2 ? operand_values(c, in.src[2], b2) : nullptr;
  const uint64_t* dd = in.nsrc > 3 ? operand_values(c, in.src[3], b3) : nullptr;
  uint64_t* out = reg_row(c.warp, in.dst[0].reg);
  const LaneMask act = c.active;
  auto each = [&](auto&& f) { for_lanes(act, [&](unsigned l) { out[l] = f(l); }); };
  auto sx = [&](uint64_t v) { return sign_extend(v, bits); };
  const bool sat = (in.flags & kSat) != 0;
  if (t == Type::pred) {
    switch (in.op) {
      case Op::and_:
        return each([&](unsigned l) { return (a[l] & b[l]) & 1; });
      case Op::or_:
        return each([&](unsigned l) { return (a[l] | b[l]) & 1; });
      case Op::xor_:
        return each([&](unsigned l) { return (a[l] ^ b[l]) & 1; });
      case Op::not_:
        return each([&](unsigned l) { return ~a[l] & 1; });
      default:
        fail(c, -1, "unsupported predicate operation");
    }
  }
  switch (in.op) {
    case Op::add:
      if (sat) return each([&](unsigned l) { return saturate_s32(sx(a[l]) + sx(b[l])); });
      return each([&](unsigned l) { return (a[l] + b[l]) & m; });
    case Op::sub:
      if (sat) return each([&](unsigned l) { return saturate_s32(sx(a[l]) - sx(b[l])); });
      return each([&](unsigned l) { return (a[l] - b[l]) & m; });
    case Op::mul:
    case Op::mad: {
      const bool mad = in.op == Op::mad;
      if (in.sub == Sub::wide) {
        const uint64_t wm = low_mask(2 * bits);
        return each([&](unsigned l) {
          uint64_t p = sgn ? uint64_t(sx(a[l]) * sx(b[l])) : (a[l] & m) * (b[l] & m);
          return (p + (mad ? cc[l] : 0)) & wm;
        });
      }
      if (in.sub == Sub::hi) {
        if (mad && sat) {  // mad.hi.sat.s32: saturate the 33-bit sum
          return each(
              [&](unsigned l) { return saturate_s32(sx(mul_hi(a[l], b[l], bits, true)) + sx(cc[l])); });
        }
        return each([&](unsigned l) { return (mul_hi(a[l], b[l], bits, sgn) + (mad ? cc[l] : 0)) & m; });
      }
      return each([&](unsigned l) { return (a[l] * b[l] + (mad ? cc[l] : 0)) & m; });
    }
    case Op::mul24:
    case Op::mad24: {
      const bool mad = in.op == Op::mad24;
      const bool hi = in.sub == Sub::hi;
      if (mad && hi && sat) {
        return each([&](unsigned l) { return saturate_s32(sx(mul24(a[l], b[l], true, true)) + sx(cc[l])); });
      }
      return each([&](unsigned l) { return (mul24(a[l], b[l], sgn, hi) + (mad ? cc[l] : 0)) & m; });
    }
    case Op::div:
      return each([&](unsigned l) { return int_div(a[l], b[l], bits, sgn, false); });
    case Op::rem:
      return each([&](unsigned l) { return int_div(a[l], b[l], bits, sgn, true); });
    case Op::abs:
      return each([&](unsigned l) {
        int64_t v = sx(a[l]);
        return (v < 0 ? 0 - uint64_t(v) : v) & m;
      });
    case Op::neg:
      return each([&](unsigned l) { return (0 - a[l]) & m; });
    case Op::min:
      if (sgn) return each([&](unsigned l) { return uint64_t(std::min(sx(a[l]), sx(b[l]))) & m; });
      return each([&](unsigned l) { return std::min(a[l] & m, b[l] & m); });
    case Op::max:
      if (sgn) return each([&](unsigned l) { return uint64_t(std::max(sx(a[l]), sx(b[l]))) & m; });
      return each([&](unsigned l) { return std::max(a[l] & m, b[l] & m); });
    case Op::sad:
      return each([&](unsigned l) {
        uint64_t diff;
        if (sgn) {
          int64_t x = sx(a[l]), y = sx(b[l]);
          diff = x > y ? uint64_t(x) - uint64_t(y) : uint64_t(y) - uint64_t(x);
        } else {
          uint64_t x = a[l] & m, y = b[l] & m;
          diff = x > y ? x - y : y - x;
        }
        return (cc[l] + diff) & m;
      });
    case Op::and_:
      return each([&](unsigned l) { return a[l] & b[l] & m; });
    case Op::or_:
      return each([&](unsigned l) { return (a[l] | b[l]) & m; });
    case Op::xor_:
      return each([&](unsigned l) { return (a[l] ^ b[l]) & m; });
    case Op::not_:
      return each([&](unsigned l) { return ~a[l] & m; });
    case Op::cnot:
      return each([&](unsigned l) { return uint64_t((a[l] & m) == 0); });
    case Op::shl:
      return each([&](unsigned l) {
        uint32_t n = uint32_t(b[l]);
        return n >= bits ? 0 : (a[l] << n) & m;
      });
    case Op::shr:
      return each([&](unsigned l) {
        uint32_t n = std::min<uint32_t>(uint32_t(b[l]), bits);
        if (sgn) return uint64_t(sx(a[l]) >> std::min<uint32_t>(n, 63)) & m;
        return n >= 64 ? 0 : ((a[l] & m) >> n);
      });
    case Op::shf: {
      const bool left = in.sub == Sub::shf_l;
      const bool clamp = (in.flags & kClamp) != 0;
      return each([&](unsigned l) {
        uint32_t n = clamp ? std::min<uint32_t>(uint32_t(cc[l]), 32) : uint32_t(cc[l]) & 31;
        uint64_t pair = (uint64_t(uint32_t(b[l])) << 32) | uint32_t(a[l]);
        return left ? uint64_t(uint32_t((pair << n) >> 32)) : uint64_t(uint32_t(pair >> n));
      });
    }
    case Op::popc:
      return each([&](unsigned l) { return uint64_t(std::popcount(a[l] & m)); });
    case Op::clz:
      return each([&](unsigned l) { return uint64_t(std::countl_zero(a[l] & m) - (64 - int(bits))); });
    case Op::bfind: {
      const bool amt = (in.flags & kShiftAmt) != 0;
      return each([&](unsigned l) { return bfind(a[l], bits, sgn, amt); });
    }
    case Op::brev:
      return each([&](unsigned l) { return brev(a[l], bits); });
    case Op::bfe:
      return each([&](unsigned l) { return bfe(a[l], uint32_t(b[l]), uint32_t(cc[l]), bits, sgn); });
    case Op::bfi:
      return each([&](unsigned l) { return bfi(a[l], b[l], uint32_t(cc[l]), uint32_t(dd[l]), bits); });
    case Op::prmt:
      return each([&](unsigned l) {
        return uint64_t(prmt(uint32_t(a[l]), uint32_t(b[l]), uint32_t(cc[l]), in.sub));
      });
    case Op::lop3:
      return each([&](unsigned l) { return lop3(a[l], b[l], cc[l], unsigned(dd[l]) & 0xff) & m; });
    default:
      fail(c, -1, "unsupported integer instruction");
  }
}

}  // namespace simtlm::ptx::exec
