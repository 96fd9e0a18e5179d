// Points where a model of branch herding or data herding (issue 14) overrides what the functional model
// computed: the direction of a conditional branch and the addresses of a load. Installed once per run on the
// LaunchContext (LaunchContext::hooks), so the functional runner and the timing model, which both execute
// through Executor::execute, see the same overrides and agree on every output.
//
// The model keeps no hook state: it calls the hook and uses what it returns. A hook object may keep state
// (counters, a herding-instance budget); it must then be deterministic in the order of the calls, which
// differs between the functional runner and the timing model.
#pragma once

#include <array>
#include <cstdint>

#include "models/ptx/functional.hpp"

namespace simtlm::ptx {

// Which warp executes the instruction. The same in every runner (the SM a CTA runs on is not: it is left
// out).
struct WarpIdentity {
  Dim3 ctaid;
  uint64_t cta_linear = 0;  // ctaid.x + grid.x * (ctaid.y + grid.y * ctaid.z)
  uint32_t warp_in_cta = 0;
};

struct BranchEvent {
  const Function& kernel;  // the running kernel; pc indexes its code (linked .func code included)
  uint32_t pc = 0;
  LaneMask active = 0;  // lanes that execute the branch instruction
  LaneMask taken = 0;   // lanes whose guard takes it (a subset of active)
  WarpIdentity warp;
  const Module* module = nullptr;  // the kernel's module (its .file table names the CUDA sources)
};

// What a branch hook decided: the lanes that take the branch, and the cycles the decision costs a timing
// model beyond the branch's own latency (a functional runner ignores them).
struct BranchDecision {
  LaneMask taken = 0;
  uint32_t extra_cycles = 0;
  BranchDecision(LaneMask taken_lanes, uint32_t cycles = 0) : taken(taken_lanes), extra_cycles(cycles) {}
};

// Called at every conditional branch (a guarded bra), never at bra.uni or an unguarded bra.
class BranchHook {
 public:
  virtual ~BranchHook() = default;
  // Returns the lanes that take the branch (the others fall through) and what the decision costs. Bits
  // outside event.active are ignored.
  virtual BranchDecision branch_taken(const BranchEvent& event) = 0;
};

struct LoadEvent {
  const Function& kernel;
  uint32_t pc = 0;
  // The instruction's state space as written: global, const, shared, local, param or generic (an ld without
  // a space). Generic addresses of global memory are the global addresses themselves.
  Space space = Space::none;
  LaneMask active = 0;  // lanes that load (mask and guard); never 0
  uint8_t bytes = 0;    // per lane: element size times vector length
  WarpIdentity warp;
  const Module* module = nullptr;
  const GlobalMemory* global = nullptr;  // the launch's global memory (which buffer an address lies in)
};

using LaneAddresses = std::array<uint64_t, kWarpSize>;

// Called at every ld with at least one active lane, in every state space; never at st, atom or red.
class LoadAddressHook {
 public:
  virtual ~LoadAddressHook() = default;
  // address[lane] holds each active lane's address as the instruction computed it (register plus offset, in
  // event.space, before the generic windows are resolved); entries of inactive lanes are unspecified. The
  // hook may rewrite the active lanes' entries. The load then reads the rewritten addresses with the usual
  // alignment and bounds checks, so a bad rewrite is a located KernelError, and a timing model coalesces
  // them. Returns the cycles the rewrite costs a timing model beyond the load's own (a functional runner
  // ignores them).
  virtual uint32_t rewrite_load(const LoadEvent& event, LaneAddresses& address) = 0;
};

}  // namespace simtlm::ptx
