// Launch sequences: an SM moves on to the next kernel of the sequence with its memory system intact.
#include "hw/sc/sm.hpp"

namespace simtlm::hw {

void Sm::next_kernel() {
  stats_ = SmStats{};
  stats_.per_branch.resize(k_.fn.code.size());
  // CAPRI's predictor is per PC of the kernel: sized again on first use.
  capri_counter_.clear();
  capri_skipped_.clear();
  // Refused as at construction; the SM issues nothing of a refused kernel.
  if (const std::string refusal = calls_refused_under_compaction(); !refusal.empty()) fail(refusal, true);
}

}  // namespace simtlm::hw
