// Calls of device functions (.func) that nvcc did not inline (-O0 code, __noinline__, recursion).
//
// Each kernel gets one code image: link_device_calls appends the body of every .func the kernel reaches
// (directly or through other .funcs) after the kernel's own code, with the callee's registers renumbered
// after the kernel's, its .local variables, call-scope .params and own .params relocated into a region of
// the thread's local frame, and its branch targets shifted. Every consumer of PCs (runner, CFG, timing
// model) therefore sees one function; a callee's CFG region is disconnected from the caller's, so its
// branches reconverge at post-dominators inside the callee and its `ret`s join the virtual exit.
//
// A `call` pushes, for each calling lane, a record of the caller's registers live across the call and of
// the callee's frame region (one record per invocation, so recursion works), then copies the arguments
// into the callee's .params; its `ret` copies the return .params out to the caller's call-scope .params
// and restores the record. Each call is charged what the compiled code's frame would hold
// (call_frames.hpp) against a per-thread limit, CUDA's cudaLimitStackSize (kCallStackBytesPerThread by
// default); a call that does not fit is a KernelError naming the function.
#pragma once

#include <array>
#include <cstdint>

#include "models/ptx/functional.hpp"
#include "models/ptx/ir.hpp"

namespace simtlm::ptx {

// Per-thread call stack of kernels that call .funcs: CUDA's default cudaLimitStackSize, 1 KiB.
inline constexpr uint32_t kCallStackBytesPerThread = 1024;

// Links every .func an entry reaches into that entry's code (see the file comment). Kernels without calls
// are left unchanged. A kernel that reaches a call of a function without a body, or with an argument or
// return count that does not match the declaration, is refused when selected (Function::unsupported).
void link_device_calls(Module& module);

// The launch's per-thread call-stack size (cudaDeviceSetLimit(cudaLimitStackSize) on the host) for every
// kernel of the module that calls .funcs: kMinCallStackBytes..kMaxCallStackBytes, a multiple of 16.
inline constexpr uint32_t kMinCallStackBytes = 256;
inline constexpr uint32_t kMaxCallStackBytes = 64 * 1024;
void set_call_stack_bytes(Module& module, uint32_t bytes);

// Bytes of the record the model keeps per thread for a call at `site` of `callee` (not what it is charged,
// which is site.frame_bytes). Records live outside the simulated local memory (WarpContext::call_records),
// at most kMaxCallRecordBytesPerThread per thread.
inline constexpr uint32_t kMaxCallRecordBytesPerThread = 1u << 20;
uint32_t call_record_bytes(const CallSite& site, const LinkedCallee& callee);

// Indirect calls (`call (r), %rd, (args), prototype;`, docs/functional-model.md, "Indirect calls"): a kernel
// that makes one has every address-taken .func linked in (Function::indirect_targets). The lanes of one call
// may call different functions: the warp serializes the call per target, as hardware does. CallGroup is one
// target with its lanes; call_groups sorts the lanes of a call step by WarpContext::call_entry into groups
// ordered by their lowest lane (the group of the lowest lane runs first) and returns how many it wrote.
struct CallGroup {
  uint32_t entry_pc = 0;
  LaneMask lanes = 0;
};
using CallGroups = std::array<CallGroup, kWarpSize>;
size_t call_groups(const std::array<uint32_t, kWarpSize>& entry_pcs, LaneMask lanes, CallGroups& groups);

// Whether code[pc] is an indirect call.
bool is_indirect_call(const Function& kernel, uint32_t pc);
// The linked callees (indices in kernel.linked_callees) a call site of the kernel's linked code may run: its
// callee, or for an indirect call every address-taken function that can run. Ascending.
std::vector<uint32_t> possible_callees(const Function& kernel, const CallSite& site);

}  // namespace simtlm::ptx
