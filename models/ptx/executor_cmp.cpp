// setp, selp and slct for integer, bit and float types.
#include <cmath>
#include <type_traits>

#include "models/ptx/executor_internal.hpp"
#include "models/ptx/float_ops.hpp"

namespace simtlm::ptx::exec {
namespace {

// Ordered compares are false when either operand is NaN; the u forms are true then.
// PTX's float comparisons, written once with the IEEE operators (false on NaN except !=, hence the negated
// forms for the unordered ones); the comparison is a template argument so that a warp's loop picks it once.
template <Cmp C, class T>
bool compare_as(T a, T b) {
  switch (C) {
    case Cmp::eq:
      return a == b;
    case Cmp::ne:
      return a < b || a > b;
    case Cmp::lt:
      return a < b;
    case Cmp::le:
      return a <= b;
    case Cmp::gt:
      return a > b;
    case Cmp::ge:
      return a >= b;
    case Cmp::equ:
      return !(a < b || a > b);
    case Cmp::neu:
      return !(a == b);
    case Cmp::ltu:
      return !(a >= b);
    case Cmp::leu:
      return !(a > b);
    case Cmp::gtu:
      return !(a <= b);
    case Cmp::geu:
      return !(a < b);
    case Cmp::num:
      return a == a && b == b;
    case Cmp::nan:
      return !(a == a && b == b);
    default:
      return false;
  }
}

// Calls f(std::integral_constant<Cmp, cmp>{}) for the runtime comparison `cmp`.
template <class F>
decltype(auto) with_cmp(Cmp cmp, F&& f) {
  switch (cmp) {
    case Cmp::eq:
      return f(std::integral_constant<Cmp, Cmp::eq>{});
    case Cmp::ne:
      return f(std::integral_constant<Cmp, Cmp::ne>{});
    case Cmp::lt:
      return f(std::integral_constant<Cmp, Cmp::lt>{});
    case Cmp::le:
      return f(std::integral_constant<Cmp, Cmp::le>{});
    case Cmp::gt:
      return f(std::integral_constant<Cmp, Cmp::gt>{});
    case Cmp::ge:
      return f(std::integral_constant<Cmp, Cmp::ge>{});
    case Cmp::equ:
      return f(std::integral_constant<Cmp, Cmp::equ>{});
    case Cmp::neu:
      return f(std::integral_constant<Cmp, Cmp::neu>{});
    case Cmp::ltu:
      return f(std::integral_constant<Cmp, Cmp::ltu>{});
    case Cmp::leu:
      return f(std::integral_constant<Cmp, Cmp::leu>{});
    case Cmp::gtu:
      return f(std::integral_constant<Cmp, Cmp::gtu>{});
    case Cmp::geu:
      return f(std::integral_constant<Cmp, Cmp::geu>{});
    case Cmp::num:
      return f(std::integral_constant<Cmp, Cmp::num>{});
    case Cmp::nan:
      return f(std::integral_constant<Cmp, Cmp::nan>{});
    default:  // the integer comparisons: compare_as() answers false, as before
      return f(std::integral_constant<Cmp, Cmp::lo>{});
  }
}

bool compare_float(Cmp cmp, double a, double b) {
  return with_cmp(cmp, [&](auto c) { return compare_as<decltype(c)::value>(a, b); });
}

// Reads a float operand as double (exact); f32 honours .ftz. f16/bf16 compare through their exact values.
double float_value(uint64_t v, Type t, bool ftz) {
  switch (t) {
    case Type::f32: {
      float f = f32_of(v);
      return ftz ? flush(f) : f;
    }
    case Type::f64:
      return f64_of(v);
    case Type::f16:
      return decode_small_float(v & 0xffff, kF16);
    case Type::bf16:
      return decode_small_float(v & 0xffff, kBF16);
    default:
      return 0;
  }
}

bool combine(BoolOp op, bool x, bool c) {
  switch (op) {
    case BoolOp::and_:
      return x && c;
    case BoolOp::or_:
      return x || c;
    case BoolOp::xor_:
      return x != c;
    case BoolOp::none:
      break;
  }
  return x;
}

// f32 (without .ftz) and f64 compares in their own type (exact, as in double) with the comparison picked
// once per warp instruction.
template <class T, class Run>
void float_setp(Cmp cmp, const uint64_t* a, const uint64_t* b, Run& run) {
  auto value = [](uint64_t bits) {
    if constexpr (sizeof(T) == 4)
      return f32_of(bits);
    else
      return f64_of(bits);
  };
  with_cmp(cmp, [&](auto c) {
    run([&](unsigned l) { return compare_as<decltype(c)::value>(value(a[l]), value(b[l])); });
  });
}

void exec_setp(Ctx& c) {
  const Instr& in = c.in;
  const Type t = in.type;
  const bool is_float = type_is_float(t);
  const bool ftz = (in.flags & kFtz) != 0;
  uint64_t b0[kWarpSize], b1[kWarpSize], b2[kWarpSize];
  const uint64_t* a = operand_values(c, in.src[0], b0);
  const uint64_t* b = operand_values(c, in.src[1], b1);
  const uint64_t* pc = in.bop != BoolOp::none ? operand_values(c, in.src[2], b2) : nullptr;
  uint64_t* p = reg_row(c.warp, in.dst[0].reg);
  uint64_t* q =
      (in.ndst > 1 && in.dst[1].kind == OperandKind::reg) ? reg_row(c.warp, in.dst[1].reg) : nullptr;
  const BoolOp bop = in.bop;
  const bool negate_c = in.bop != BoolOp::none && in.src[2].negate;
  auto run = [&](auto&& test) {
    for_lanes(c.active, [&](unsigned l) {
      bool r = test(l);
      bool cv = pc ? (((pc[l] & 1) != 0) != negate_c) : false;
      p[l] = combine(bop, r, cv);
      if (q) q[l] = combine(bop, !r, cv);
    });
  };
  if (t == Type::f32 && !ftz) return float_setp<float>(in.cmp, a, b, run);
  if (t == Type::f64) return float_setp<double>(in.cmp, a, b, run);
  if (is_float) {
    const Cmp cmp = in.cmp;
    return run(
        [&](unsigned l) { return compare_float(cmp, float_value(a[l], t, ftz), float_value(b[l], t, ftz)); });
  }
  // Integer compares are the hot ones: pick the comparison once per warp instruction.
  const unsigned bits = type_bits(t);
  const uint64_t m = low_mask(bits);
  auto u = [&](const uint64_t* v, unsigned l) { return v[l] & m; };
  auto s = [&](const uint64_t* v, unsigned l) { return sign_extend(v[l], bits); };
  const bool sgn = type_is_signed(t);
  switch (in.cmp) {
    case Cmp::eq:
      return run([&](unsigned l) { return u(a, l) == u(b, l); });
    case Cmp::ne:
      return run([&](unsigned l) { return u(a, l) != u(b, l); });
    case Cmp::lt:
      if (sgn) return run([&](unsigned l) { return s(a, l) < s(b, l); });
      [[fallthrough]];
    case Cmp::lo:
      return run([&](unsigned l) { return u(a, l) < u(b, l); });
    case Cmp::le:
      if (sgn) return run([&](unsigned l) { return s(a, l) <= s(b, l); });
      [[fallthrough]];
    case Cmp::ls:
      return run([&](unsigned l) { return u(a, l) <= u(b, l); });
    case Cmp::gt:
      if (sgn) return run([&](unsigned l) { return s(a, l) > s(b, l); });
      [[fallthrough]];
    case Cmp::hi:
      return run([&](unsigned l) { return u(a, l) > u(b, l); });
    case Cmp::ge:
      if (sgn) return run([&](unsigned l) { return s(a, l) >= s(b, l); });
      [[fallthrough]];
    case Cmp::hs:
      return run([&](unsigned l) { return u(a, l) >= u(b, l); });
    default:
      fail(c, -1, "unordered comparison on an integer type");
  }
}

}  // namespace

void exec_compare(Ctx& c) {
  const Instr& in = c.in;
  if (in.op == Op::setp) return exec_setp(c);
  uint64_t b0[kWarpSize], b1[kWarpSize], b2[kWarpSize];
  const uint64_t* a = operand_values(c, in.src[0], b0);
  const uint64_t* b = operand_values(c, in.src[1], b1);
  const uint64_t* sel = operand_values(c, in.src[2], b2);
  uint64_t* out = reg_row(c.warp, in.dst[0].reg);
  const uint64_t m = low_mask(type_bits(in.type));
  if (in.op == Op::selp) {
    for_lanes(c.active, [&](unsigned l) { out[l] = ((sel[l] & 1) ? a[l] : b[l]) & m; });
    return;
  }
  // slct: d = c >= 0 ? a : b, with c of type2 (s32 or f32; -0.0 counts as >= 0, NaN selects b).
  const bool float_c = in.type2 == Type::f32;
  const bool ftz = (in.flags & kFtz) != 0;
  for_lanes(c.active, [&](unsigned l) {
    bool ge = float_c ? float_value(sel[l], Type::f32, ftz) >= 0.0 : sign_extend(sel[l], 32) >= 0;
    out[l] = (ge ? a[l] : b[l]) & m;
  });
}

}  // namespace simtlm::ptx::exec
