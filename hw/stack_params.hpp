// Parameters of the per-warp reconvergence stack: discipline, on-chip capacity, spill chunking and the
// cycle cost of each stack event. The presets are fitted from the measurements of the divergence-cost
// paper (/work/shared/papers/divergence-cost-cuda.txt); docs/simt-stack.md gives each number's source.
#pragma once

#include <cstdint>
#include <string>

#include "models/config/config_section.hpp"

namespace simtlm::hw {

enum class Discipline : uint8_t {
  postdom,  // GPGPU-Sim style: the top entry waits at the reconvergence PC, both paths are pushed
  token,    // SSY pushes a SYNC token, a divergent branch a DIV token, the carrier at the join pops
};

struct StackTiming {
  // Cycles charged per event. The paper fits one total per divergence (push + carrier + pop); section
  // IV-A finds the push hidden and the whole cost in the unwinding, so it is charged to the pop.
  uint32_t divergent_branch = 0;
  uint32_t pop = 0;
  uint32_t spill = 0;  // per chunk written
  uint32_t fill = 0;   // per chunk read back
};

struct StackParams {
  Discipline discipline = Discipline::postdom;
  uint32_t onchip_entries = 16;  // paper sec. IV: first jump when the stack exceeds 16 entries
  uint32_t chunk_entries = 4;    // paper sec. IV: jumps every four steps
  uint32_t entry_bytes = 8;      // paper sec. III: a token is 64 bits (32 of them the mask)
  uint64_t spill_base = 0;       // per-warp spill regions start here in global memory
  uint64_t region_bytes = 4096;  // bytes of spill region per warp
  StackTiming timing;
};

// Kepler (GT 650M, GT 755M, GTX 770): 32 cycles per divergence (sec. IV, fit to n = 0..15 of Fig. 1),
// 84 cycles per spill+fill pair (sec. IV), split 40 on the pushing branch / 44 on the unwinding per sec.
// IV-A.
inline StackTiming kepler_timing() {
  return StackTiming{0, 32, 40, 44};
}
// Maxwell (GTX 850M): 26 cycles per divergence (sec. IV; the conclusion says 24, see docs/simt-stack.md),
// 176 cycles per spill+fill pair (sec. IV); the paper gives no split for Maxwell, so it is halved.
inline StackTiming maxwell_timing() {
  return StackTiming{0, 26, 88, 88};
}

// "kepler" or "maxwell"; throws std::invalid_argument otherwise.
StackTiming timing_preset(const std::string& name);

// The stack.* parameters (hw/stack_schema.hpp), checked: the preset's timing, each nonzero stack.cycles.*
// overriding its event's cost.
StackParams stack_params(const config::ConfigSection& stack);

}  // namespace simtlm::hw
