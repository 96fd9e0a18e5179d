// The PTX ISA's operand type rules ("Operand Type Information", "Type Checking" and "Operand Size Exceeding
// Instruction-Type Size"), checked against the declared type of every register a decoded instruction names.
#pragma once

#include <string_view>
#include <vector>

#include "models/ptx/ir.hpp"

namespace simtlm::ptx {

// Throws DecodeError naming the opcode and the operand when a register's declared type does not fit where
// the instruction reads or writes it. The rules:
// - a predicate register only where the instruction takes a predicate, and the other way round;
// - otherwise the register must be as wide as the operand's type, and of a compatible kind: a bit-size
//   register (.bN) fits every type of its width, integer registers fit integer and bit-size operands, float
//   registers fit float and bit-size operands of their own width;
// - ld, st and cvt may keep narrow data in wider registers (ld.u8 into a .b32, cvt.u32.u16 from a .b32),
//   except that a float register holds only its own float width;
// - mul.wide/mad.wide write (and mad.wide adds) a value twice the instruction's width; popc, clz and bfind
//   write a 32-bit count; mov and vector operands pack: each element of {a, b} is a register of the
//   instruction's width divided by the element count;
// - an address [reg] needs a 32- or 64-bit integer or bit-size register.
// Registers the parser makes for vector literals ("%__" names) are not checked: they are 64 bits wide by
// construction.
void check_operand_types(const Instr& instr, const std::vector<RegInfo>& regs, std::string_view opcode);

}  // namespace simtlm::ptx
