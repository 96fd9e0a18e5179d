// Decoding of the warp-level instructions: vote, shfl, match, redux (with their member masks), fns and
// nanosleep.
#include <unordered_map>

#include "models/ptx/decode_internal.hpp"

namespace simtlm::ptx::decode_detail {
namespace {

const std::unordered_map<std::string_view, Sub>& vote_modes() {
  static const std::unordered_map<std::string_view, Sub> kVote = {
      {"ballot", Sub::v_ballot}, {"any", Sub::v_any}, {"all", Sub::v_all}, {"uni", Sub::v_uni}};
  return kVote;
}

bool set_mode(const std::unordered_map<std::string_view, Sub>& modes, std::string_view mod, Instr& instr) {
  auto it = modes.find(mod);
  if (it == modes.end()) return false;
  instr.sub = it->second;
  return true;
}

// d or d|p as the first operand.
void destination_with_predicate(const ParsedOperand& parsed, Instr& instr, bool allow_predicate,
                                std::string_view opcode) {
  ParsedOperand first = parsed;
  uint32_t pair = first.pair_reg;
  first.pair_reg = kNoReg;
  instr.dst[0] = destination(first);
  instr.ndst = 1;
  if (pair == kNoReg) return;
  if (!allow_predicate) fail("'|' predicate destination is not allowed in " + quoted(opcode));
  instr.dst[1].kind = OperandKind::reg;
  instr.dst[1].reg = pair;
  instr.ndst = 2;
}

// Pre-sync vote and shfl act on the whole warp: the implicit member mask is all lanes.
Operand whole_warp() {
  Operand mask;
  mask.kind = OperandKind::imm;
  mask.imm = 0xffffffffu;
  return mask;
}

void require_sync(const Instr& instr, std::string_view opcode) {
  if (!(instr.flags & kSync)) fail(quoted(opcode) + " needs .sync");
}

}  // namespace

bool warp_family_modifier(std::string_view mod, Instr& instr) {
  const bool warp_op =
      instr.op == Op::vote || instr.op == Op::shfl || instr.op == Op::match || instr.op == Op::redux;
  if (!warp_op) return false;
  if (mod == "sync") {
    instr.flags |= kSync;
    return true;
  }
  switch (instr.op) {
    case Op::vote:
      return set_mode(vote_modes(), mod, instr);
    case Op::shfl: {
      static const std::unordered_map<std::string_view, Sub> kModes = {
          {"up", Sub::s_up}, {"down", Sub::s_down}, {"bfly", Sub::s_bfly}, {"idx", Sub::s_idx}};
      return set_mode(kModes, mod, instr);
    }
    case Op::match: {
      static const std::unordered_map<std::string_view, Sub> kModes = {{"any", Sub::m_any},
                                                                       {"all", Sub::m_all}};
      return set_mode(kModes, mod, instr);
    }
    case Op::redux: {
      static const std::unordered_map<std::string_view, Sub> kModes = {
          {"add", Sub::r_add}, {"min", Sub::r_min}, {"max", Sub::r_max},
          {"and", Sub::r_and}, {"or", Sub::r_or},   {"xor", Sub::r_xor}};
      return set_mode(kModes, mod, instr);
    }
    default:
      return false;
  }
}

bool decode_warp_operands(std::string_view opcode, std::vector<ParsedOperand>& ops, Instr& instr) {
  const Type t = instr.type;
  const bool has_mask = (instr.flags & kSync) != 0;
  switch (instr.op) {
    case Op::vote:
      if (instr.sub == Sub::none) fail("vote needs .ballot/.any/.all/.uni");
      if (instr.sub == Sub::v_ballot ? t != Type::b32 : t != Type::pred)
        fail("bad type in " + quoted(opcode) + ": vote.ballot is .b32, the others .pred");
      expect_count(ops, has_mask ? 3 : 2, opcode);
      destination_with_predicate(ops[0], instr, false, opcode);
      instr.src[0] = source(ops[1], Type::pred, kSrcNegate);
      instr.src[1] = has_mask ? source(ops[2], Type::b32) : whole_warp();
      instr.nsrc = 2;
      return true;
    case Op::shfl:
      if (instr.sub == Sub::none) fail("shfl needs .up/.down/.bfly/.idx");
      expect_count(ops, has_mask ? 5 : 4, opcode);
      destination_with_predicate(ops[0], instr, true, opcode);
      instr.src[0] = source(ops[1], t);
      instr.src[1] = source(ops[2], Type::b32);
      instr.src[2] = source(ops[3], Type::b32);
      instr.src[3] = has_mask ? source(ops[4], Type::b32) : whole_warp();
      instr.nsrc = 4;
      return true;
    case Op::match:
      if (instr.sub == Sub::none) fail("match needs .any or .all");
      require_sync(instr, opcode);
      if (t != Type::b32 && t != Type::b64) fail("match needs .b32 or .b64, in " + quoted(opcode));
      expect_count(ops, 3, opcode);
      destination_with_predicate(ops[0], instr, instr.sub == Sub::m_all, opcode);
      instr.src[0] = source(ops[1], t);
      instr.src[1] = source(ops[2], Type::b32);
      instr.nsrc = 2;
      return true;
    case Op::redux: {
      if (instr.sub == Sub::none) fail("redux needs an operation (.add, .min, .max, .and, .or, .xor)");
      require_sync(instr, opcode);
      const bool arithmetic = instr.sub == Sub::r_add || instr.sub == Sub::r_min || instr.sub == Sub::r_max;
      if (arithmetic ? (t != Type::u32 && t != Type::s32) : t != Type::b32) {
        unsupported(std::string("unsupported type in ") + quoted(opcode) +
                    ": redux .add/.min/.max take .u32 or .s32, .and/.or/.xor take .b32");
      }
      expect_count(ops, 3, opcode);
      destination_with_predicate(ops[0], instr, false, opcode);
      instr.src[0] = source(ops[1], t);
      instr.src[1] = source(ops[2], Type::b32);
      instr.nsrc = 2;
      return true;
    }
    case Op::fns:
      if (t != Type::b32) fail("fns needs .b32, in " + quoted(opcode));
      expect_count(ops, 4, opcode);
      destination_with_predicate(ops[0], instr, false, opcode);
      instr.src[0] = source(ops[1], Type::b32);
      instr.src[1] = source(ops[2], Type::u32);
      instr.src[2] = source(ops[3], Type::s32);
      instr.nsrc = 3;
      return true;
    case Op::nanosleep:
      if (t != Type::u32) fail("nanosleep needs .u32, in " + quoted(opcode));
      expect_count(ops, 1, opcode);
      instr.src[0] = source(ops[0], Type::u32);
      instr.nsrc = 1;
      return true;
    default:
      return false;
  }
}

}  // namespace simtlm::ptx::decode_detail
