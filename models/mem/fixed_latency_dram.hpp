#pragma once
// A DRAM channel that answers every request a fixed number of core cycles after accepting it, with no bank,
// row or bus effects: up to queue_depth requests overlap fully (dram.mode: fixed).
#include <cstdint>
#include <systemc>

#include "models/mem/dram_channel.hpp"

namespace simtlm::mem {

class FixedLatencyDram : public DramChannel {
 public:
  FixedLatencyDram(sc_core::sc_module_name name, const DramParams& params);

 private:
  uint64_t held() const override { return in_flight_; }
  bool accept(uint32_t port, Gp& p) override;

  uint32_t in_flight_ = 0;
  Timeline timeline_;
};

}  // namespace simtlm::mem
