#include "models/ptx/operand_types.hpp"

#include <string>

#include "models/ptx/decode.hpp"

namespace simtlm::ptx {
namespace {

// How a register operand is compared with the type the instruction gives it.
enum class Rule : uint8_t {
  skip,     // not a register operand, or no type rule applies
  exact,    // same width, compatible kind
  relaxed,  // ld/st/cvt data: the register may be wider than the type (never a wider float register)
  address,  // base register of [reg+imm]
};

struct Expect {
  Type type = Type::none;
  Rule rule = Rule::skip;
};

constexpr Expect exact(Type type) {
  return {type, Rule::exact};
}

bool is_bit_size(Type t) {
  return t == Type::b8 || t == Type::b16 || t == Type::b32 || t == Type::b64 || t == Type::b128;
}
bool is_packed_half(Type t) {
  return t == Type::f16x2 || t == Type::bf16x2;
}

Type bit_type(unsigned bits) {
  switch (bits) {
    case 8:
      return Type::b8;
    case 16:
      return Type::b16;
    case 32:
      return Type::b32;
    case 64:
      return Type::b64;
    default:
      return Type::none;
  }
}

// mul.wide / mad.wide: the product is twice as wide as the inputs.
Type widened(Type t) {
  switch (t) {
    case Type::u16:
      return Type::u32;
    case Type::s16:
      return Type::s32;
    case Type::u32:
      return Type::u64;
    case Type::s32:
      return Type::s64;
    default:
      return t;
  }
}

bool fits(Type reg, Type want, Rule rule) {
  if (want == Type::pred || reg == Type::pred) return want == reg;
  const unsigned reg_bits = type_bits(reg), want_bits = type_bits(want);
  if (rule == Rule::address) return !type_is_float(reg) && (reg_bits == 32 || reg_bits == 64);
  const bool wider_ok = rule == Rule::relaxed && !type_is_float(reg);
  if (reg_bits != want_bits && !(wider_ok && reg_bits > want_bits)) return false;
  if (is_bit_size(want) || is_bit_size(reg) || is_packed_half(want)) return true;
  return type_is_float(want) == type_is_float(reg);
}

std::string expectation(Type want, Rule rule) {
  if (want == Type::pred) return "a .pred register";
  if (rule == Rule::address) return "a 32- or 64-bit integer or bit-size register";
  const std::string bits = std::to_string(type_bits(want));
  const std::string width = rule == Rule::relaxed ? "at least " + bits + " bits wide" : bits + " bits wide";
  if (is_bit_size(want) || is_packed_half(want)) return "a register " + width + " (not .pred)";
  if (type_is_float(want)) return "a ." + std::string(type_name(want)) + " or .b" + bits + " register";
  return "an integer or bit-size register " + width;
}

Expect destination_rule(const Instr& in, unsigned index) {
  const Type t = in.type;
  if (index == 1) return exact(Type::pred);  // setp, shfl and match write a predicate after '|'
  switch (in.op) {
    case Op::setp:
    case Op::testp:
      return exact(Type::pred);
    case Op::vote:
      return exact(in.sub == Sub::v_ballot ? Type::b32 : Type::pred);
    case Op::bar:
      return exact(in.sub == Sub::bar_red_popc ? Type::u32 : Type::pred);
    case Op::popc:
    case Op::clz:
    case Op::bfind:
      return exact(Type::u32);
    case Op::activemask:
    case Op::match:
    case Op::fns:
      return exact(Type::b32);
    case Op::mul:
    case Op::mad:
      return exact(in.sub == Sub::wide ? widened(t) : t);
    case Op::cvt:
    case Op::ld:
      return {t, Rule::relaxed};
    default:
      return exact(t);
  }
}

Expect source_rule(const Instr& in, unsigned index) {
  const Type t = in.type;
  switch (in.op) {
    case Op::call:
      return {};
    case Op::setp:
    case Op::selp:
      return exact(index == 2 ? Type::pred : t);
    case Op::slct:
      return exact(index == 2 ? in.type2 : t);
    case Op::shl:
    case Op::shr:
      return exact(index == 0 ? t : Type::u32);
    case Op::shf:
      return exact(index < 2 ? t : Type::u32);
    case Op::bfe:
      return exact(index == 0 ? t : Type::u32);
    case Op::bfi:
      return exact(index < 2 ? t : Type::u32);
    case Op::prmt:
      return exact(index < 2 ? t : Type::b32);
    case Op::mad:
      return exact(index == 2 && in.sub == Sub::wide ? widened(t) : t);
    case Op::cvt:
      return {in.type2, Rule::relaxed};
    case Op::st:
      return {t, Rule::relaxed};
    case Op::bar:
      return exact(index == 2 ? Type::pred : Type::u32);
    case Op::bar_warp:
    case Op::nanosleep:
      return exact(Type::u32);
    case Op::vote:
      return exact(index == 0 ? Type::pred : Type::b32);
    case Op::shfl:
    case Op::match:
    case Op::redux:
      return exact(index == 0 ? t : Type::b32);
    case Op::fns:
      return exact(index == 0 ? Type::b32 : index == 1 ? Type::u32 : Type::s32);
    case Op::tex:  // the texture object, then the coordinates
      return exact(index == 0 ? Type::b64 : in.type2);
    default:
      return exact(t);
  }
}

class Checker {
 public:
  Checker(const Instr& in, const std::vector<RegInfo>& regs, std::string_view opcode)
      : in_(in), regs_(regs), opcode_(opcode) {}

  void run() const {
    for (unsigned i = 0; i < in_.ndst && i < 2; ++i)
      operand(in_.dst[i], destination_rule(in_, i), "destination");
    for (unsigned i = 0; i < in_.nsrc && i < 4; ++i) operand(in_.src[i], source_rule(in_, i), "source");
  }

 private:
  void operand(const Operand& op, Expect expect, const char* role) const {
    if (expect.rule == Rule::skip) return;
    switch (op.kind) {
      case OperandKind::reg:
        check(op.reg, expect, role);
        return;
      case OperandKind::mem:
        check(op.reg, {Type::b64, Rule::address}, "address");
        return;
      case OperandKind::vec: {
        // ld/st vectors hold one value of the instruction's type per element; mov packs the type's bits.
        const bool packs = in_.op == Op::mov;
        const Expect element =
            packs ? Expect{bit_type(op.count ? type_bits(in_.type) / op.count : 0), Rule::exact} : expect;
        if (element.type == Type::none)
          throw DecodeError("bad operand: a vector of " + std::to_string(op.count) +
                            " elements cannot pack ." + type_name(in_.type) + " in " + quoted());
        for (unsigned i = 0; i < op.count && i < 4; ++i) check(op.vregs[i], element, role);
        return;
      }
      default:
        return;
    }
  }

  void check(uint32_t reg, Expect expect, const char* role) const {
    if (reg == kNoReg || reg >= regs_.size()) return;
    const RegInfo& info = regs_[reg];
    if (info.name.starts_with("%__")) return;
    if (fits(info.type, expect.type, expect.rule)) return;
    throw DecodeError("operand type mismatch in " + quoted() + ": " + role + " " + info.name + " is a ." +
                      type_name(info.type) + " register; it must be " +
                      expectation(expect.type, expect.rule));
  }

  std::string quoted() const { return "'" + std::string(opcode_) + "'"; }

  const Instr& in_;
  const std::vector<RegInfo>& regs_;
  std::string_view opcode_;
};

}  // namespace

void check_operand_types(const Instr& instr, const std::vector<RegInfo>& regs, std::string_view opcode) {
  Checker(instr, regs, opcode).run();
}

}  // namespace simtlm::ptx
