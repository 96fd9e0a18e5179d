// Operand helpers shared by the decoder's translation units (decode.cpp, decode_operands.cpp,
// decode_warp.cpp). Not a public API.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "models/ptx/decode.hpp"

namespace simtlm::ptx::decode_detail {

[[noreturn]] void fail(const std::string& message);         // malformed: the module does not load
[[noreturn]] void unsupported(const std::string& message);  // well-formed but not modelled
std::string quoted(std::string_view text);

void expect_count(const std::vector<ParsedOperand>& operands, size_t count, std::string_view what);
Operand destination(const ParsedOperand& parsed, bool allow_vec = false);

enum SrcAllow : unsigned { kSrcPlain = 0, kSrcSpecial = 1, kSrcSymbol = 2, kSrcVec = 4, kSrcNegate = 8 };
Operand source(const ParsedOperand& parsed, Type read_type, unsigned allow = kSrcPlain);
Operand memory(const ParsedOperand& parsed);
// instr.src[i] = source(operands[first + i], read_types[i]) for each listed type.
void set_sources(Instr& instr, const std::vector<ParsedOperand>& operands, size_t first,
                 std::initializer_list<Type> read_types);

// Warp-level instructions (vote, shfl, match, redux, fns, nanosleep): their own modifiers and operands.
// family: returns false when `mod` is not one of the opcode's modifiers. operands: returns false when the
// opcode is not a warp-level one.
bool warp_family_modifier(std::string_view mod, Instr& instr);
bool decode_warp_operands(std::string_view opcode, std::vector<ParsedOperand>& ops, Instr& instr);

// Every other opcode family (decode_operands.cpp): refuses types the functional model does not compute in,
// then checks and resolves the operands into `instr`.
void check_supported_type(const Instr& instr, std::string_view opcode);
void decode_operands(std::string_view opcode, std::vector<ParsedOperand>& ops, Instr& instr);

}  // namespace simtlm::ptx::decode_detail
