#pragma once
// Runs the steps that end a kernel's memory traffic one after another: each step begins with an action
// (e.g. write a cache level's dirty lines back) and is over when its condition holds. Conditions are
// checked again whenever one of the watched events fires (a cache or load/store unit going idle), so the
// drain costs nothing while it waits.
#include <functional>
#include <systemc>
#include <vector>

namespace simtlm::mem {

class DrainSequence : public sc_core::sc_module {
 public:
  struct Step {
    std::function<void()> begin;  // may be empty
    std::function<bool()> done;
    std::function<void()> then;  // runs once done() holds; may be empty
  };

  SC_HAS_PROCESS(DrainSequence);
  explicit DrainSequence(sc_core::sc_module_name name);

  // Events after which done() of the running step may have become true. Call during elaboration.
  void watch(const sc_core::sc_event& e) { watched_.push_back(&e); }
  // Starts the steps; a step whose condition already holds completes at once, within this call.
  void start(std::vector<Step> steps);
  bool running() const { return next_ < steps_.size(); }

 private:
  void advance();
  void check();

  std::vector<const sc_core::sc_event*> watched_;
  sc_core::sc_event_or_list any_watched_;  // next_trigger keeps a reference: it must outlive the wait
  size_t listed_ = 0;                      // watched events already in any_watched_
  std::vector<Step> steps_;
  size_t next_ = 0;
  bool begun_ = false;
  sc_core::sc_event wake_;
};

}  // namespace simtlm::mem
