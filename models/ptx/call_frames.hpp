// What a call costs on the per-thread call stack (cudaLimitStackSize): the frame the compiled code would
// hold, estimated from the PTX. ptxas keeps the values a function needs after a call in callee-saved
// registers, which the callee saves in its frame together with the return address, and places the
// callee's __local_depot in the same frame. So a call record is charged
//   the bytes of the caller's registers live across the call (liveness on the caller's PTX CFG;
//   register_frame_bytes each) + the callee's .local depot + kCallFrameBookkeepingBytes,
// rounded up to 8 bytes as ptxas rounds its frames. The model itself keeps more (8 bytes per live register
// and the callee's whole frame region with its .params, see executor_call.cpp); only the charge counts
// against the limit.
#pragma once

#include <cstdint>
#include <vector>

#include "models/ptx/ir.hpp"

namespace simtlm::ptx {

// The return address (8 bytes) and the caller's stack pointer the callee restores (8 bytes).
inline constexpr uint32_t kCallFrameBookkeepingBytes = 16;

// Load-time bounds of the analysis, so a hostile module cannot make loading explode: the liveness bit sets
// of a function with calls ((instructions + 1) x registers / 64 words), and the registers live across the
// calls of one kernel with its callees (entries of CallSite::saved_regs). Past them the module is not loaded.
inline constexpr uint64_t kMaxLivenessWords = uint64_t{1} << 24;
inline constexpr uint64_t kMaxSavedRegistersPerKernel = uint64_t{1} << 24;
uint64_t liveness_words(const Function& fn);

// Bytes of a register of this type in the compiled code: 64-bit types 8, .b128 16, every other type
// (predicates, 8/16/32-bit) one 32-bit register, 4.
uint32_t register_frame_bytes(Type type);

// Per instruction of fn: for a call, the registers of fn live across it (read on some path after the call
// before an unguarded write; ascending); empty for every other instruction. Throws std::length_error when
// the lists would hold more than max_entries registers in all.
std::vector<std::vector<uint32_t>> live_across_calls(const Function& fn,
                                                     uint64_t max_entries = kMaxSavedRegistersPerKernel);

// Bytes of the function's own .local variables (its __local_depot), without its .params.
uint32_t local_depot_bytes(const Module& module, uint32_t function);

// The charge of a call record: live register bytes + the callee's depot + bookkeeping, rounded up to 8.
uint32_t call_frame_charge(const Function& caller, const std::vector<uint32_t>& live_registers,
                           uint32_t callee_depot_bytes);

// The frame of `function` as ptxas would size it (ptxas -v's "N bytes stack frame"), for comparing: the most
// register bytes it keeps live across any of its calls + its own depot + bookkeeping, rounded up to 8. A
// recursive call of the function is charged at most this much.
uint32_t frame_estimate(const Module& module, uint32_t function);

}  // namespace simtlm::ptx
