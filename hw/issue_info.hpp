// What the issue stage needs to know of each instruction of a kernel, decoded once per launch: the
// functional-unit class it occupies and the registers the scoreboard checks (sources for read-after-write,
// destinations for write-after-write). Values stay with the functional model.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "models/ptx/cfg.hpp"
#include "models/ptx/ir.hpp"

namespace simtlm::hw {

enum class OpClass : uint8_t { integer, float32, float64, sfu, memory, branch, count_ };
inline constexpr size_t kOpClasses = static_cast<size_t>(OpClass::count_);
const char* op_class_name(OpClass c);  // "int", "float", "double", "sfu", "memory", "branch"

struct IssueInfo {
  OpClass cls = OpClass::integer;
  uint8_t nsrc = 0;
  uint8_t ndst = 0;
  std::array<uint32_t, 10> src{};  // guard, operands, memory base registers
  std::array<uint32_t, 4> dst{};
  uint32_t reconvergence_pc = ptx::kNoTarget;  // branches
  bool conditional = false;                    // a conditional branch (counted in the divergence stats)
};

OpClass classify(const ptx::Instr& in);

// Per PC of fn.
std::vector<IssueInfo> decode_issue_info(const ptx::Function& fn, const ptx::Cfg& cfg);

// The most 32-bit register words live at once at any instruction (predicates excluded): what a register
// allocator needs at least, an estimate of the registers per thread nvcc's SASS would use.
uint32_t max_live_register_words(const ptx::Function& fn, const std::vector<IssueInfo>& info);

// "PC 12 (PTX line 40, kernel.cu:7)" for error reports and statistics keys.
std::string describe_pc(const ptx::Module& module, const ptx::Function& fn, uint32_t pc);

}  // namespace simtlm::hw
