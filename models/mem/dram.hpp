#pragma once
// One DRAM channel: banks with an open-row buffer each, an FR-FCFS (or FCFS) request queue, and DDR timing
// in DRAM clocks. Several initiators (L2 banks) may bind `in`.
#include <cstdint>
#include <systemc>
#include <vector>

#include "models/mem/dram_channel.hpp"

namespace simtlm::mem {

class Dram : public DramChannel {
 public:
  SC_HAS_PROCESS(Dram);
  Dram(sc_core::sc_module_name name, const DramParams& params);

  sc_core::sc_time tck() const { return p_.clock / p_.clock_ratio; }

 private:
  struct Req {
    Gp* p;
    uint32_t port, bank;
    uint64_t row;
    sc_core::sc_time arrival;
    bool activated = false;  // its row was opened for it: a row miss
  };
  struct Bank {
    int64_t open_row = -1;
    sc_core::sc_time act_at, ready_at;  // last ACT; earliest column command
  };

  uint64_t held() const override { return queue_.size(); }
  bool accept(uint32_t port, Gp& p) override;
  void schedule();
  sc_core::sc_time dclk(uint64_t n) const { return tck() * static_cast<double>(n); }

  // Mutable state.
  std::vector<Req> queue_;  // arrival order
  std::vector<Bank> banks_;
  sc_core::sc_time bus_free_;
  sc_core::sc_event wake_;
};

}  // namespace simtlm::mem
