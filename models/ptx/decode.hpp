// Table-driven decoding of one PTX instruction (opcode with modifiers + parsed operands) into an Instr.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "models/ptx/ir.hpp"

namespace simtlm::ptx {

// An operand as the parser resolved it; literals keep their spelling class until the instruction type is
// known, because a float immediate is stored as the bits of the type the operand is read as.
struct ParsedOperand {
  enum class Literal : uint8_t { none, integer, f32_bits, f64_bits, decimal };
  Operand operand;
  Literal literal = Literal::none;
  double decimal = 0.0;        // value of a decimal float literal
  uint32_t pair_reg = kNoReg;  // second register of "%p|%q"
  std::string_view name;       // identifier text of a label operand (kind == label)
};

// A decoding failure; the parser adds file, line and instruction text. A malformed instruction stops the
// module from loading.
struct DecodeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// A well-formed instruction the model does not support (opcode, modifier, type, state space): only the
// kernels that reach it are refused.
struct UnsupportedError : DecodeError {
  using DecodeError::DecodeError;
};

// "u32" -> Type::u32; Type::none when the name is not a supported type.
Type type_from_name(std::string_view name);

// Fills instr (op, types, modifiers, operands) from the opcode token ("ld.global.v2.f32") and the operands.
// Leaves guard, line, loc and target to the caller. Throws DecodeError. `call` is decoded by the parser.
void decode_instruction(std::string_view opcode, std::vector<ParsedOperand>& operands, Instr& instr);

// True when the opcode's base name ("ld" of "ld.global.u32") is one we decode; checked before the operands
// are parsed so that unsupported instructions are reported as such and not as operand syntax errors.
bool is_supported_opcode(std::string_view opcode);

// Converts a literal operand to the immediate bits of `type` (see docs/ir.md).
uint64_t literal_bits(const ParsedOperand& parsed, Type type);

}  // namespace simtlm::ptx
