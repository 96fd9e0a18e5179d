// The end of a kernel in the memory system: outstanding requests answered, then dirty lines written back.
#include <algorithm>

#include "hw/sc/gpu.hpp"

namespace simtlm::hw {

void Gpu::drain_memory(std::function<void()> requests_done, std::function<void()> written_back) {
  auto all_idle = [](const auto& caches) {
    return std::all_of(caches.begin(), caches.end(), [](const auto& c) { return c->idle(); });
  };
  std::vector<mem::DrainSequence::Step> steps;
  steps.push_back({{},
                   [this] {
                     return std::all_of(sms_.begin(), sms_.end(),
                                        [](const auto& sm) { return sm->lsu().outstanding() == 0; });
                   },
                   std::move(requests_done)});
  // Write-through L1s hold nothing dirty, but their stores in flight must reach the L2 before it is
  // written back; write-back L1s send their dirty lines first.
  steps.push_back({[this] {
                     for (auto& l1 : l1_) l1->write_back_dirty();
                   },
                   [this, all_idle] { return all_idle(l1_); },
                   {}});
  steps.push_back({[this] {
                     for (auto& l2 : l2_) l2->write_back_dirty();
                   },
                   [this, all_idle] { return all_idle(l2_); }, std::move(written_back)});
  drain_.start(std::move(steps));
}

}  // namespace simtlm::hw
