#pragma once
// What --trace-vcd shows (docs/timing-model.md, "Waveforms"): every component adds its signals to one Waves,
// named by its module path, so the VCD's scopes are the module hierarchy (SystemC nests a name's dotted parts
// as scopes). Waves drives a clock of the core's period and, at each rising edge, settles the signals that
// stand for an event rather than a level (a request sent, a warp instruction issued): such a bit is high
// from the event to the next rising edge, or for the whole cycle when the event falls on the edge. The clock
// runs as long as anything else is scheduled, so the simulation still ends when the model has nothing to do.
#include <cstdint>
#include <functional>
#include <string>
#include <systemc>
#include <vector>

namespace simtlm::mem {

class Waves {
 public:
  // `file` stays its caller's (closed after the simulation); `clock_name` is the clock's signal name.
  Waves(sc_core::sc_trace_file* file, const sc_core::sc_time& clock, const std::string& clock_name);
  Waves(const Waves&) = delete;
  Waves& operator=(const Waves&) = delete;

  template <typename T>
  void trace(const T& value, const std::string& name) {
    sc_core::sc_trace(file_, value, name);
  }
  // Runs `settle` at every rising edge of the clock, before the edge's time step ends.
  void each_cycle(std::function<void()> settle) { settle_.push_back(std::move(settle)); }

 private:
  void edge();

  sc_core::sc_trace_file* const file_;
  const sc_core::sc_time half_period_;
  bool clock_ = false;
  uint64_t cycle_ = 0;  // traced next to the clock: the core cycle the edge starts
  std::vector<std::function<void()>> settle_;
  sc_core::sc_event edge_event_;
};

// An event's bit (above): pulse() at the event; settle(level) at each rising edge keeps it high while
// `level` holds or the event falls on this edge.
struct PulseBit {
  bool value = false;
  sc_core::sc_time at = sc_core::sc_max_time();
  void pulse() {
    value = true;
    at = sc_core::sc_time_stamp();
  }
  void settle(bool level) { value = level || at == sc_core::sc_time_stamp(); }
};

}  // namespace simtlm::mem
