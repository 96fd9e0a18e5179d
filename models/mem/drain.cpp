#include "models/mem/drain.hpp"

namespace simtlm::mem {

DrainSequence::DrainSequence(sc_core::sc_module_name name) : sc_module(name) {
  declare_method_process(check_handle, "check_method", SC_CURRENT_USER_MODULE, check);
  sensitive << wake_;
  dont_initialize();
}

void DrainSequence::start(std::vector<Step> steps) {
  steps_ = std::move(steps);
  next_ = 0;
  begun_ = false;
  advance();
  if (running()) wake_.notify(sc_core::SC_ZERO_TIME);
}

void DrainSequence::advance() {
  while (running()) {
    Step& step = steps_[next_];
    if (!begun_) {
      begun_ = true;
      if (step.begin) step.begin();
    }
    if (!step.done()) return;
    const std::function<void()> then = step.then;  // it may start another sequence
    ++next_;
    begun_ = false;
    if (then) then();
  }
}

void DrainSequence::check() {
  advance();
  if (!running() || watched_.empty()) return;
  for (; listed_ < watched_.size(); ++listed_) any_watched_ |= *watched_[listed_];
  next_trigger(any_watched_);
}

}  // namespace simtlm::mem
