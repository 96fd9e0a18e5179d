// The functional model's part of .func calls (see call_link.hpp): saving and restoring call records on the
// per-thread call stack and moving arguments and return values. Not a public API.
#pragma once

#include "models/ptx/executor_internal.hpp"

namespace simtlm::ptx::exec {

// A call to a linked .func (Instr::call_site set) for the lanes of c.active.
void exec_device_call(Ctx& c);
// A ret of a linked .func (Instr::returns_from set) for the lanes of c.active; reported as an exit step,
// which the stacks tell from a thread's exit by Instr::returns_from.
void exec_device_return(Ctx& c);

}  // namespace simtlm::ptx::exec
