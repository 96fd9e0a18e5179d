// Runs one warp of a one-warp launch with the ptx::Executor computing values and a hw::SimtStack deciding
// the masks, and estimates its cycles as one per issued warp instruction plus the stack events' costs.
// Enough to reproduce the divergence-cost paper's figures before the SystemC core exists; the functional
// runner stays the reference for the outputs.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "hw/simt_stack.hpp"
#include "hw/stack_params.hpp"
#include "models/launch/launch.hpp"

namespace simtlm::studies {

using hw::MemRequest;
using hw::StackCounters;
using hw::StackParams;

struct StackRunResult {
  std::map<std::string, std::vector<uint8_t>> buffers;  // final contents of every buffer
  uint64_t warp_instructions = 0;
  uint64_t thread_instructions = 0;
  StackCounters stack;
  std::vector<MemRequest> spill_requests;  // every spill/fill request, in order
  uint64_t cycles = 0;                     // warp_instructions + stack.cycles
};

class StackRunner {
 public:
  explicit StackRunner(StackParams params, uint64_t instruction_budget = 100'000'000);
  // Throws std::invalid_argument unless the launch is one CTA of at most 32 threads (barriers are then
  // trivially complete); ptx::PtxError / ptx::KernelError as the functional runner does.
  StackRunResult run(const launch::Launch& launch) const;

 private:
  StackParams params_;
  uint64_t budget_;
};

}  // namespace simtlm::studies
