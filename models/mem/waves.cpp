#include "models/mem/waves.hpp"

#ifndef SC_INCLUDE_DYNAMIC_PROCESSES
#define SC_INCLUDE_DYNAMIC_PROCESSES
#endif
#include <systemc>

namespace simtlm::mem {

Waves::Waves(sc_core::sc_trace_file* file, const sc_core::sc_time& clock, const std::string& clock_name)
    : file_(file), half_period_(clock / 2.0) {
  sc_core::sc_trace(file_, clock_, clock_name);
  sc_core::sc_trace(file_, cycle_, clock_name + "_cycle");
  sc_core::sc_spawn_options o;
  o.spawn_method();
  o.set_sensitivity(&edge_event_);  // initialised: the first rising edge is at time zero
  sc_core::sc_spawn([this] { edge(); }, sc_core::sc_gen_unique_name("waves_clock_method", true), &o);
}

void Waves::edge() {
  clock_ = !clock_;
  if (clock_) {
    cycle_ = static_cast<uint64_t>(sc_core::sc_time_stamp() / (half_period_ * 2.0) + 0.5);
    for (const auto& settle : settle_) settle();
  }
  // Our own event has fired: anything still pending belongs to the model.
  if (sc_core::sc_pending_activity()) edge_event_.notify(half_period_);
}

}  // namespace simtlm::mem
