// Task mode (the Robust SIMD paper's parallel-for, docs/robust-simd.md): every thread of a grid is an
// independent task that any hardware thread context of any WPU may run, next to tasks of other CTAs. A kernel
// qualifies when nothing in it depends on which threads share its CTA or its warp.
#pragma once

#include <string>

#include "models/ptx/ir.hpp"

namespace simtlm::ptx {

// Why `kernel` cannot run as a parallel-for, naming the first offending instruction (file line, PTX line and
// PC); empty when it can. Refused: CTA barriers, shared memory, warp-wide intrinsics (vote, shfl, match,
// redux, activemask, bar.warp) and calls of .func functions.
std::string task_mode_refusal(const Module& module, const Function& kernel);

}  // namespace simtlm::ptx
