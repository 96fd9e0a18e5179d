#include "models/mem/fixed_latency_dram.hpp"

namespace simtlm::mem {

FixedLatencyDram::FixedLatencyDram(sc_core::sc_module_name name, const DramParams& params)
    : DramChannel(name, params), timeline_("response") {}

bool FixedLatencyDram::accept(uint32_t port, Gp& p) {
  if (full(p)) return false;
  note_occupancy();
  const sc_core::sc_time latency = p_.clock * static_cast<double>(p_.fixed_latency);
  ++in_flight_;
  note_held();
  complete(port, p, sc_core::sc_time_stamp(), latency);
  timeline_.at(latency, [this] {
    note_occupancy();
    --in_flight_;
    note_held();
    retry_ports();
  });
  return true;
}

}  // namespace simtlm::mem
