#pragma once
// N SM-side target ports to M L2-bank initiator ports. A payload is forwarded as is (no copy): the bank
// is chosen by address interleaving and the response returns to the port it came from, with the response
// status its target set (an interconnect never sets one itself). `in` serves the whole base protocol:
// nb_transport_fw, b_transport (through the same path), transport_dbg (forwarded to the banks, split at the
// interleaving) and get_direct_mem_ptr (refused) (docs/tlm-protocol.md).
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <systemc>
#include <tlm>
#include <unordered_map>
#include <vector>

#include "models/mem/at_ports.hpp"
#include "models/mem/mem_stats.hpp"
#include "models/mem/queue_occupancy.hpp"
#include "models/mem/request_ext.hpp"

namespace simtlm::mem {

struct CrossbarParams {
  uint32_t in_ports = 1;            // SM side; exactly this many initiators must bind `in`
  uint32_t out_ports = 1;           // L2 banks; exactly this many targets must bind `out`
  uint32_t interleave_bytes = 256;  // bank = (addr / interleave_bytes) % out_ports
  uint32_t bytes_per_cycle = 32;    // per SM-side port and direction
  uint32_t latency = 8;             // cycles, each direction
  uint32_t bank_queue = 8;          // requests waiting per bank before back-pressure
  sc_core::sc_time clock = sc_core::sc_time(1, sc_core::SC_NS);
};

class Crossbar : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<Crossbar> in;
  tlm_utils::multi_passthrough_initiator_socket<Crossbar> out;

  Crossbar(sc_core::sc_module_name name, const CrossbarParams& params);

  uint32_t bank_of(uint64_t addr) const { return (addr / p_.interleave_bytes) % p_.out_ports; }
  // How an error response from bank port `bank` names its origin (RequestExt::error_at) when nothing below
  // did: by default the module the bound target socket belongs to, as far as known here.
  void set_target_name(uint32_t bank, std::string name) { target_names_.at(bank) = std::move(name); }
  const std::vector<CrossbarPortStats>& port_stats() const { return in_stats_; }
  stats::Group statistics() const;  // of crossbar_stats_decl()
  nlohmann::json stats_json() const { return statistics().json(); }
  // --trace-vcd: per bank port NAME.bankB_queue (requests not yet past END_REQ) and its link, NAME.out_B.
  void trace_waves(Waves& waves);

 private:
  void end_of_elaboration() override;
  tlm::tlm_sync_enum fw(int port, Gp& p, tlm::tlm_phase& ph, sc_core::sc_time& t);
  tlm::tlm_sync_enum bw(int port, Gp& p, tlm::tlm_phase& ph, sc_core::sc_time& t);
  void b_transport(int port, Gp& p, sc_core::sc_time& t) { in_ports_.at(port)->b_transport(p, t); }
  unsigned transport_dbg(int port, Gp& p);
  bool get_direct_mem_ptr(int, Gp&, tlm::tlm_dmi& dmi) { return refuse_dmi(dmi); }
  bool accept(uint32_t port, Gp& p);
  void on_resp(uint32_t bank, Gp& p);
  uint64_t transfer_cycles(unsigned bytes) const {
    return (bytes + p_.bytes_per_cycle - 1) / p_.bytes_per_cycle;
  }

  const CrossbarParams p_;
  // Mutable state.
  std::vector<sc_core::sc_time> req_link_free_, resp_link_free_;  // per SM-side port
  std::unordered_map<Gp*, uint32_t> origin_;
  std::vector<CrossbarPortStats> in_stats_;
  std::vector<uint64_t> bank_requests_;
  std::vector<QueueOccupancy> bank_queue_;  // requests handed to a bank port and not yet past its END_REQ
  std::vector<const Gp*> refused_;
  std::vector<std::string> target_names_;
  std::vector<std::unique_ptr<AtTargetPort>> in_ports_;
  std::vector<std::unique_ptr<AtInitiatorPort>> out_ports_;
  Timeline retry_timeline_;
};

}  // namespace simtlm::mem
