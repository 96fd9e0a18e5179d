// What a kernel needs beyond its own code, worked out once the whole module is parsed: the .func functions
// it reaches, its own shared-memory layout and whether it reaches a construct the model does not support.
// shared_layout() itself is declared in ir.hpp so that every user of a Function can size a CTA.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/ptx/ir.hpp"
#include "models/ptx/parser.hpp"

namespace simtlm::ptx {

// Indices of the functions `root` reaches through calls, `root` first, then in ascending index order.
std::vector<uint32_t> reachable_functions(const Module& module, uint32_t root);

// Fills Function::callees from the calls' Instr::callee, lays out each entry's shared memory over the
// variables it reaches, and marks entries that reach an unsupported function. The parser calls it last.
void lay_out_kernels(Module& module);

// Why a block of x*y*z threads cannot launch `kernel` under its .maxntid / .reqntid (CUDA refuses such a
// launch); empty when it can.
std::string launch_bounds_violation(const Function& kernel, uint32_t x, uint32_t y, uint32_t z);

// Why `kernel` cannot run: a PtxError with the original file:line, message and source text of the first
// unsupported construct the kernel reaches, naming the kernel; nullopt when it can run. The one support
// check of a kernel: `simtlm run` reaches it through require_supported, `simtlm check` through the sessions'
// refusals().
std::optional<PtxError> kernel_refusal(const Module& module, const Function& kernel);

// Throws kernel_refusal's error, if any. Selecting a kernel goes through here (the Executor's constructor).
void require_supported(const Module& module, const Function& kernel);

}  // namespace simtlm::ptx
