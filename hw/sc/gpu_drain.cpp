// The end of a kernel in the memory system: outstanding requests answered, then dirty lines written back.
#include <algorithm>

#include "hw/sc/gpu.hpp"

namespace simtlm::hw {

void Gpu::drain_memory(std::function<void()> requests_done, std::function<void()> written_back) {
  std::vector<mem::DrainSequence::Step> steps;
  steps.push_back({{},
                   [this] {
                     return std::all_of(sms_.begin(), sms_.end(),
                                        [](const auto& sm) { return sm->lsu().outstanding() == 0; });
                   },
                   std::move(requests_done)});
  for (mem::DrainSequence::Step& step : memory_.write_back_steps(std::move(written_back)))
    steps.push_back(std::move(step));
  drain_.start(std::move(steps));
}

}  // namespace simtlm::hw
