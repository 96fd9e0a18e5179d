#include "models/ptx/decode.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "models/ptx/decode_internal.hpp"

namespace simtlm::ptx {
namespace {

// Which generic modifier groups an opcode accepts; everything else must be handled by the opcode's own
// modifier hook or is an error.
enum Allow : uint32_t {
  kAType = 1u << 0,
  kAType2 = 1u << 1,     // a second type (cvt, slct)
  kARound = 1u << 2,     // .rn .rz .rm .rp
  kARoundInt = 1u << 3,  // .rni .rzi .rmi .rpi
  kAFtz = 1u << 4,
  kASat = 1u << 5,
  kAApprox = 1u << 6,
  kAFull = 1u << 7,
  kAMulMode = 1u << 8,  // .lo .hi .wide
  kACmp = 1u << 9,
  kABool = 1u << 10,
  kASpace = 1u << 11,
  kAVec = 1u << 12,
  kAMemHints = 1u << 13,  // cache hints, memory-model semantics and scopes: accepted and ignored
  kAAtomOp = 1u << 14,
  kAUni = 1u << 15,
};

struct OpSpec {
  Op op;
  uint32_t allow;
};

constexpr uint32_t kFloatArith = kAType | kARound | kAFtz | kASat;

const std::unordered_map<std::string_view, OpSpec>& op_table() {
  static const std::unordered_map<std::string_view, OpSpec> table = {
      {"bra", {Op::bra, kAUni}},
      {"ret", {Op::ret, kAUni}},
      {"exit", {Op::exit, 0}},
      {"trap", {Op::trap, 0}},
      {"bar", {Op::bar, kAType}},
      {"barrier", {Op::bar, kAType}},
      {"vote", {Op::vote, kAType}},
      {"shfl", {Op::shfl, kAType}},
      {"activemask", {Op::activemask, kAType}},
      {"match", {Op::match, kAType}},
      {"redux", {Op::redux, kAType}},
      {"fns", {Op::fns, kAType}},
      {"nanosleep", {Op::nanosleep, kAType}},
      {"membar", {Op::membar, 0}},
      {"fence", {Op::membar, 0}},
      {"add", {Op::add, kFloatArith}},
      {"sub", {Op::sub, kFloatArith}},
      {"mul", {Op::mul, kFloatArith | kAMulMode}},
      {"mad", {Op::mad, kFloatArith | kAMulMode}},
      {"mul24", {Op::mul24, kAType | kAMulMode}},
      {"mad24", {Op::mad24, kAType | kAMulMode | kASat}},
      {"div", {Op::div, kAType | kARound | kAFtz | kAApprox | kAFull}},
      {"rem", {Op::rem, kAType}},
      {"abs", {Op::abs, kAType | kAFtz}},
      {"neg", {Op::neg, kAType | kAFtz}},
      {"min", {Op::min, kAType | kAFtz}},
      {"max", {Op::max, kAType | kAFtz}},
      {"fma", {Op::fma, kFloatArith}},
      {"copysign", {Op::copysign, kAType}},
      {"sad", {Op::sad, kAType}},
      {"and", {Op::and_, kAType}},
      {"or", {Op::or_, kAType}},
      {"xor", {Op::xor_, kAType}},
      {"not", {Op::not_, kAType}},
      {"cnot", {Op::cnot, kAType}},
      {"shl", {Op::shl, kAType}},
      {"shr", {Op::shr, kAType}},
      {"shf", {Op::shf, kAType}},
      {"popc", {Op::popc, kAType}},
      {"clz", {Op::clz, kAType}},
      {"bfind", {Op::bfind, kAType}},
      {"brev", {Op::brev, kAType}},
      {"bfe", {Op::bfe, kAType}},
      {"bfi", {Op::bfi, kAType}},
      {"prmt", {Op::prmt, kAType}},
      {"lop3", {Op::lop3, kAType}},
      {"setp", {Op::setp, kAType | kACmp | kABool | kAFtz}},
      {"selp", {Op::selp, kAType}},
      {"slct", {Op::slct, kAType | kAType2 | kAFtz}},
      {"testp", {Op::testp, kAType}},
      {"mov", {Op::mov, kAType}},
      {"cvt", {Op::cvt, kAType | kAType2 | kARound | kARoundInt | kAFtz | kASat}},
      {"cvta", {Op::cvta, kAType | kASpace}},
      {"ld", {Op::ld, kAType | kASpace | kAVec | kAMemHints}},
      {"st", {Op::st, kAType | kASpace | kAVec | kAMemHints}},
      {"atom", {Op::atom, kAType | kASpace | kAAtomOp | kAMemHints}},
      {"red", {Op::red, kAType | kASpace | kAAtomOp | kAMemHints}},
      {"sqrt", {Op::sqrt, kAType | kARound | kAFtz | kAApprox}},
      {"rsqrt", {Op::rsqrt, kAType | kAFtz | kAApprox}},
      {"rcp", {Op::rcp, kAType | kARound | kAFtz | kAApprox}},
      {"ex2", {Op::ex2, kAType | kAFtz | kAApprox}},
      {"lg2", {Op::lg2, kAType | kAFtz | kAApprox}},
      {"sin", {Op::sin, kAType | kAFtz | kAApprox}},
      {"cos", {Op::cos, kAType | kAFtz | kAApprox}},
      {"tanh", {Op::tanh, kAType | kAApprox}},
      {"tex", {Op::tex, kAType | kAType2 | kAVec}},
  };
  return table;
}

template <typename T>
bool lookup(const std::unordered_map<std::string_view, T>& table, std::string_view key, T* out) {
  auto it = table.find(key);
  if (it == table.end()) return false;
  *out = it->second;
  return true;
}

const std::unordered_map<std::string_view, Type> kTypes = {
    {"pred", Type::pred}, {"b8", Type::b8},         {"b16", Type::b16}, {"b32", Type::b32},
    {"b64", Type::b64},   {"b128", Type::b128},     {"u8", Type::u8},   {"u16", Type::u16},
    {"u32", Type::u32},   {"u64", Type::u64},       {"s8", Type::s8},   {"s16", Type::s16},
    {"s32", Type::s32},   {"s64", Type::s64},       {"f16", Type::f16}, {"f16x2", Type::f16x2},
    {"bf16", Type::bf16}, {"bf16x2", Type::bf16x2}, {"f32", Type::f32}, {"f64", Type::f64}};

const std::unordered_map<std::string_view, Rounding> kRoundings = {
    {"rn", Rounding::rn},   {"rz", Rounding::rz},   {"rm", Rounding::rm},   {"rp", Rounding::rp},
    {"rni", Rounding::rni}, {"rzi", Rounding::rzi}, {"rmi", Rounding::rmi}, {"rpi", Rounding::rpi}};

const std::unordered_map<std::string_view, Cmp> kCmps = {
    {"eq", Cmp::eq},   {"ne", Cmp::ne},   {"lt", Cmp::lt},   {"le", Cmp::le},   {"gt", Cmp::gt},
    {"ge", Cmp::ge},   {"lo", Cmp::lo},   {"ls", Cmp::ls},   {"hi", Cmp::hi},   {"hs", Cmp::hs},
    {"equ", Cmp::equ}, {"neu", Cmp::neu}, {"ltu", Cmp::ltu}, {"leu", Cmp::leu}, {"gtu", Cmp::gtu},
    {"geu", Cmp::geu}, {"num", Cmp::num}, {"nan", Cmp::nan}};

const std::unordered_map<std::string_view, BoolOp> kBoolOps = {
    {"and", BoolOp::and_}, {"or", BoolOp::or_}, {"xor", BoolOp::xor_}};

const std::unordered_map<std::string_view, Space> kSpaces = {
    {"global", Space::global}, {"shared", Space::shared}, {"shared::cta", Space::shared},
    {"local", Space::local},   {"param", Space::param},   {"param::entry", Space::param},
    {"const", Space::constant}};

const std::unordered_map<std::string_view, Sub> kAtomOps = {
    {"add", Sub::a_add}, {"min", Sub::a_min}, {"max", Sub::a_max},   {"inc", Sub::a_inc},
    {"dec", Sub::a_dec}, {"cas", Sub::a_cas}, {"exch", Sub::a_exch}, {"and", Sub::a_and},
    {"or", Sub::a_or},   {"xor", Sub::a_xor}};

bool is_ignored_memory_hint(std::string_view mod) {
  static const std::unordered_map<std::string_view, bool> kHints = {
      {"weak", true}, {"relaxed", true}, {"acquire", true}, {"release", true}, {"acq_rel", true},
      {"gpu", true},  {"cta", true},     {"sys", true},     {"ca", true},      {"cg", true},
      {"cs", true},   {"lu", true},      {"cv", true},      {"wb", true},      {"wt", true}};
  if (mod.starts_with("L1::") || mod.starts_with("L2::")) return true;
  return kHints.count(mod) != 0;
}

// What a load's hints say about the L1 (Flag::kCoherent): .cg/.cv skip it; .acquire/.relaxed at .gpu/.sys
// scope must see what other SMs wrote, which a non-coherent L1 may hold stale.
struct Coherence {
  bool bypass = false, ordered = false, wide_scope = false;
};
void note_coherence(std::string_view mod, Coherence& c) {
  c.bypass = c.bypass || mod == "cg" || mod == "cv";
  c.ordered = c.ordered || mod == "acquire" || mod == "relaxed";
  c.wide_scope = c.wide_scope || mod == "gpu" || mod == "sys";
}

}  // namespace

namespace decode_detail {

void fail(const std::string& message) {
  throw DecodeError(message);
}

void unsupported(const std::string& message) {
  throw UnsupportedError(message);
}

std::string quoted(std::string_view text) {
  std::string result = "'";  // built by appends: GCC 12 flags operator+ here with a false -Wrestrict
  result += text;
  result += '\'';
  return result;
}

// --- Operand helpers ----------------------------------------------------------------------------------

void expect_count(const std::vector<ParsedOperand>& operands, size_t count, std::string_view what) {
  if (operands.size() != count) {
    fail("wrong operand count: " + std::string(what) + " takes " + std::to_string(count) + " operands, got " +
         std::to_string(operands.size()));
  }
}

void reject_pair(const ParsedOperand& parsed) {
  if (parsed.pair_reg != kNoReg) fail("'|' destination pair is not allowed here");
}

void check_not_label(const ParsedOperand& parsed) {
  if (parsed.operand.kind == OperandKind::label) fail("undefined symbol " + quoted(parsed.name));
}

Operand destination(const ParsedOperand& parsed, bool allow_vec) {
  check_not_label(parsed);
  reject_pair(parsed);
  OperandKind kind = parsed.operand.kind;
  if (kind == OperandKind::reg || kind == OperandKind::sink || (allow_vec && kind == OperandKind::vec)) {
    if (parsed.operand.negate) fail("a destination cannot be negated");
    return parsed.operand;
  }
  fail("bad operand: destination must be a register");
}

Operand source(const ParsedOperand& parsed, Type read_type, unsigned allow) {
  check_not_label(parsed);
  reject_pair(parsed);
  Operand operand = parsed.operand;
  if (operand.negate && !(allow & kSrcNegate)) fail("bad operand: '!' is only allowed on predicate operands");
  switch (operand.kind) {
    case OperandKind::reg:
      return operand;
    case OperandKind::imm:
      operand.imm = literal_bits(parsed, read_type);
      return operand;
    case OperandKind::special:
      if (allow & kSrcSpecial) return operand;
      fail("bad operand: special registers can only be read by mov");
    case OperandKind::sym_addr:
      if (allow & kSrcSymbol) return operand;
      fail("bad operand: a symbol address can only be taken by mov or cvta");
    case OperandKind::vec:
      if (allow & kSrcVec) return operand;
      fail("bad operand: vector operand not allowed here");
    case OperandKind::mem:
      fail("bad operand: memory operand not allowed here");
    default:
      fail("bad operand");
  }
}

Operand memory(const ParsedOperand& parsed) {
  reject_pair(parsed);
  if (parsed.operand.kind != OperandKind::mem) fail("bad operand: expected an address [..]");
  return parsed.operand;
}

void set_sources(Instr& instr, const std::vector<ParsedOperand>& operands, size_t first,
                 std::initializer_list<Type> read_types) {
  size_t index = 0;
  for (Type type : read_types) {
    instr.src[index] = source(operands[first + index], type);
    ++index;
  }
  instr.nsrc = static_cast<uint8_t>(index);
}
}  // namespace decode_detail

namespace {

using namespace decode_detail;

uint16_t float_to_half_bits(float value) {
  uint32_t bits = std::bit_cast<uint32_t>(value);
  uint32_t sign = (bits >> 16) & 0x8000u;
  int32_t exponent = static_cast<int32_t>((bits >> 23) & 0xff) - 127 + 15;
  uint32_t mantissa = bits & 0x7fffffu;
  if (((bits >> 23) & 0xff) == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (mantissa ? 0x200u : 0));
  if (exponent >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
  if (exponent <= 0) {
    if (exponent < -10) return static_cast<uint16_t>(sign);
    mantissa |= 0x800000u;
    uint32_t shift = static_cast<uint32_t>(14 - exponent);
    uint32_t half = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = sign | (static_cast<uint32_t>(exponent) << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1))) ++half;  // may carry into the exponent: correct
  return static_cast<uint16_t>(half);
}

uint16_t float_to_bf16_bits(float value) {
  uint32_t bits = std::bit_cast<uint32_t>(value);
  if (std::isnan(value)) return static_cast<uint16_t>((bits >> 16) | 0x40u);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

// --- Per-family modifier hooks ------------------------------------------------------------------------

// Handles modifiers only one opcode family understands; returns false when `mod` is not one of them.
bool family_modifier(std::string_view base, std::string_view mod, Instr& instr) {
  if (warp_family_modifier(mod, instr)) return true;
  switch (instr.op) {
    case Op::bar:
      if (mod == "sync") {
        instr.sub = Sub::bar_sync;
        return true;
      }
      if (mod == "arrive") {
        instr.sub = Sub::bar_arrive;
        return true;
      }
      if (mod == "red") {
        instr.sub = Sub::bar_red_popc;
        return true;
      }  // refined by popc/and/or
      if (mod == "cta") return true;
      if (mod == "aligned") {
        instr.flags |= kAligned;
        return true;
      }
      if (mod == "warp" && base == "bar") {
        instr.op = Op::bar_warp;
        return true;
      }
      if (instr.sub == Sub::bar_red_popc || instr.sub == Sub::bar_red_and || instr.sub == Sub::bar_red_or) {
        if (mod == "popc") {
          instr.sub = Sub::bar_red_popc;
          return true;
        }
        if (mod == "and") {
          instr.sub = Sub::bar_red_and;
          return true;
        }
        if (mod == "or") {
          instr.sub = Sub::bar_red_or;
          return true;
        }
      }
      return false;
    case Op::bar_warp:
      return mod == "sync";
    case Op::membar:
      // membar.gl/cta/sys and every fence flavour only order memory; the functional model is sequentially
      // consistent, so the qualifiers carry no meaning for us.
      return base == "fence" || mod == "gl" || mod == "cta" || mod == "sys";
    case Op::cvta:
      if (mod == "to") {
        instr.sub = Sub::to_space;
        return true;
      }
      return false;
    case Op::shf:
      if (mod == "l") {
        instr.sub = Sub::shf_l;
        return true;
      }
      if (mod == "r") {
        instr.sub = Sub::shf_r;
        return true;
      }
      if (mod == "wrap") {
        instr.flags |= kWrap;
        return true;
      }
      if (mod == "clamp") {
        instr.flags |= kClamp;
        return true;
      }
      return false;
    case Op::bfind:
      if (mod == "shiftamt") {
        instr.flags |= kShiftAmt;
        return true;
      }
      return false;
    case Op::prmt: {
      static const std::unordered_map<std::string_view, Sub> kModes = {
          {"f4e", Sub::prmt_f4e}, {"b4e", Sub::prmt_b4e}, {"rc8", Sub::prmt_rc8},
          {"ecl", Sub::prmt_ecl}, {"ecr", Sub::prmt_ecr}, {"rc16", Sub::prmt_rc16}};
      return lookup(kModes, mod, &instr.sub);
    }
    case Op::testp: {
      static const std::unordered_map<std::string_view, Sub> kTests = {
          {"finite", Sub::testp_finite}, {"infinite", Sub::testp_infinite},
          {"number", Sub::testp_number}, {"notanumber", Sub::testp_notanumber},
          {"normal", Sub::testp_normal}, {"subnormal", Sub::testp_subnormal}};
      return lookup(kTests, mod, &instr.sub);
    }
    case Op::tex:
      if (mod == "1d" || mod == "2d" || mod == "3d") {
        instr.sub = mod == "1d" ? Sub::tex_1d : mod == "2d" ? Sub::tex_2d : Sub::tex_3d;
        return true;
      }
      if (mod == "a1d" || mod == "a2d" || mod == "cube" || mod == "acube" || mod == "2dms" || mod == "a2dms")
        unsupported("texture geometry ." + std::string(mod) + " is not supported (.1d, .2d and .3d are)");
      if (mod == "base" || mod == "level" || mod == "grad")
        unsupported("tex." + std::string(mod) +
                    " (mipmap levels) is not supported: only plain tex fetches are");
      return false;
    case Op::ld:
      if (mod == "nc") {
        instr.flags |= kNc;
        return true;
      }
      [[fallthrough]];
    case Op::st:
      if (mod == "volatile") {
        instr.flags |= kVolatile;
        return true;
      }
      return false;
    default:
      return false;
  }
}

void apply_modifiers(std::string_view opcode, std::string_view base, uint32_t allow, Instr& instr) {
  int types = 0;
  Coherence coherence;
  size_t pos = base.size();
  while (pos < opcode.size()) {
    size_t next = opcode.find('.', pos + 1);
    if (next == std::string_view::npos) next = opcode.size();
    std::string_view mod = opcode.substr(pos + 1, next - pos - 1);
    pos = next;
    if (mod.empty()) fail("empty modifier");
    if (family_modifier(base, mod, instr)) continue;
    Type type;
    Rounding rounding;
    Cmp cmp;
    BoolOp bool_op;
    Space space;
    Sub sub;
    if ((allow & kAType) && lookup(kTypes, mod, &type)) {
      if (types == 0) {
        instr.type = type;
      } else if (types == 1 && (allow & kAType2)) {
        instr.type2 = type;
      } else {
        fail("too many types in " + quoted(opcode));
      }
      ++types;
    } else if ((allow & kARound) && lookup(kRoundings, mod, &rounding) &&
               (rounding <= Rounding::rp || (allow & kARoundInt))) {
      instr.rnd = rounding;
    } else if ((allow & kAFtz) && mod == "ftz") {
      instr.flags |= kFtz;
    } else if ((allow & kASat) && mod == "sat") {
      instr.flags |= kSat;
    } else if ((allow & kAApprox) && mod == "approx") {
      instr.flags |= kApprox;
    } else if ((allow & kAFull) && mod == "full") {
      instr.flags |= kFull;
    } else if ((allow & kAUni) && mod == "uni") {
      instr.flags |= kUni;
    } else if ((allow & kAMulMode) && (mod == "lo" || mod == "hi" || mod == "wide")) {
      instr.sub = mod == "lo" ? Sub::lo : mod == "hi" ? Sub::hi : Sub::wide;
    } else if ((allow & kACmp) && lookup(kCmps, mod, &cmp)) {
      instr.cmp = cmp;
    } else if ((allow & kABool) && lookup(kBoolOps, mod, &bool_op)) {
      instr.bop = bool_op;
    } else if ((allow & kASpace) && lookup(kSpaces, mod, &space)) {
      instr.space = space;
    } else if ((allow & kAVec) && (mod == "v2" || mod == "v4")) {
      instr.vec = mod == "v2" ? 2 : 4;
    } else if ((allow & kAAtomOp) && lookup(kAtomOps, mod, &sub)) {
      instr.sub = sub;
    } else if ((allow & kAMemHints) && is_ignored_memory_hint(mod)) {
      if (instr.op == Op::ld) note_coherence(mod, coherence);
      continue;
    } else if (mod == "cc") {
      unsupported("carry-chain instructions (" + quoted(opcode) + ") are not supported");
    } else {
      unsupported("unsupported modifier ." + std::string(mod) + " in " + quoted(opcode));
    }
  }
  if (coherence.bypass || (coherence.ordered && coherence.wide_scope)) instr.flags |= kCoherent;
  if (types == 0 && (allow & kAType)) {
    // Only a few opcodes are typeless in PTX.
    bool typeless = instr.op == Op::bar || instr.op == Op::bar_warp || instr.op == Op::membar;
    if (!typeless) fail("missing type in " + quoted(opcode));
  }
  if ((allow & kAType2) && types == 1) fail("missing second type in " + quoted(opcode));
}

}  // namespace

Type type_from_name(std::string_view name) {
  Type type = Type::none;
  lookup(kTypes, name, &type);
  return type;
}

uint64_t literal_bits(const ParsedOperand& parsed, Type type) {
  using Literal = ParsedOperand::Literal;
  uint64_t raw = parsed.operand.imm;
  double value = 0.0;
  switch (parsed.literal) {
    case Literal::none:
    case Literal::integer:
      if (!type_is_float(type) || type == Type::f16x2 || type == Type::bf16x2) return raw;
      value = static_cast<double>(static_cast<int64_t>(raw));
      break;
    case Literal::f32_bits:
      if (!type_is_float(type) || type == Type::f32 || type == Type::f16x2 || type == Type::bf16x2)
        return raw;
      value = std::bit_cast<float>(static_cast<uint32_t>(raw));
      break;
    case Literal::f64_bits:
      if (!type_is_float(type) || type == Type::f64) return raw;
      value = std::bit_cast<double>(raw);
      break;
    case Literal::decimal:
      if (!type_is_float(type))
        fail("bad operand: decimal float literal in a ." + std::string(type_name(type)) + " operand");
      value = parsed.decimal;
      break;
  }
  switch (type) {
    case Type::f64:
      return std::bit_cast<uint64_t>(value);
    case Type::f32:
      return std::bit_cast<uint32_t>(static_cast<float>(value));
    case Type::f16:
      return float_to_half_bits(static_cast<float>(value));
    case Type::bf16:
      return float_to_bf16_bits(static_cast<float>(value));
    default:
      return raw;
  }
}

bool is_supported_opcode(std::string_view opcode) {
  return op_table().count(opcode.substr(0, opcode.find('.'))) != 0;
}

void decode_instruction(std::string_view opcode, std::vector<ParsedOperand>& operands, Instr& instr) {
  std::string_view base = opcode.substr(0, opcode.find('.'));
  OpSpec spec;
  if (!lookup(op_table(), base, &spec)) unsupported("unsupported instruction " + quoted(opcode));
  instr.op = spec.op;
  apply_modifiers(opcode, base, spec.allow, instr);
  check_supported_type(instr, opcode);
  decode_operands(opcode, operands, instr);
}

}  // namespace simtlm::ptx
