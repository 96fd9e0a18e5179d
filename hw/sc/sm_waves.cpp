// What --trace-vcd shows of an SM (Sm::Wave).
#include <string>

#include "hw/sc/sm.hpp"

namespace simtlm::hw {

void Sm::trace_waves(mem::Waves& waves) {
  wave.enabled = true;
  const std::string base = name();
  waves.trace(wave.issue_valid.value, base + ".issue_valid");
  waves.trace(wave.issued_slot, base + ".issue_slot");
  waves.trace(wave.issued_mask, base + ".issue_mask");
  for (size_t slot = 0; slot < wave.mask.size(); ++slot) {
    const std::string warp = base + ".warp" + std::to_string(slot);
    waves.trace(wave.mask[slot], warp + ".active_mask");
    waves.trace(wave.depth[slot], warp + ".stack_depth");
  }
  waves.each_cycle([this] { wave.issue_valid.settle(false); });
  lsu_.trace_waves(waves);
  refresh_wave();
}

void Sm::refresh_wave() {
  for (uint32_t s = 0; s < wave.mask.size(); ++s) {
    const bool live = slot(s).live;
    const SlotView view = live ? unit_->view(s) : SlotView{};
    wave.mask[s] = view.lanes;
    wave.depth[s] = view.depth;
  }
}

}  // namespace simtlm::hw
