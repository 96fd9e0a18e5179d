#pragma once
// A scripted AT initiator for the memory tests: sends each request at its cycle (or later, FIFO, when
// back-pressured) and records when END_REQ and the response arrived.
#include <tlm_utils/simple_initiator_socket.h>

#include <cstdint>
#include <string>
#include <systemc>
#include <tlm>
#include <unordered_map>
#include <vector>

#include "models/mem/at_ports.hpp"
#include "models/mem/payload_pool.hpp"

namespace simtlm::mem::test {

struct Access {
  uint64_t cycle;
  tlm::tlm_command cmd;
  uint64_t addr;
  unsigned len = 32;
  std::vector<AtomicTarget> atomics = {};  // non-empty: an atomic (a read the L2's atomic unit performs)
  bool coherent = false;                   // RequestExt::coherent: an L1 passes it down uncached
};

class TrafficGen : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<TrafficGen> out;
  std::vector<Access> script;
  std::vector<double> accepted, responded;  // cycles; -1 until it happens
  std::vector<int> l1_marks;                // per response: 1 the L1 hit, 0 it missed, -1 no L1 looked it up
  std::vector<tlm::tlm_response_status> status;  // per response
  std::vector<std::string> error_at;             // per response: RequestExt::error_at

  SC_HAS_PROCESS(TrafficGen);
  explicit TrafficGen(sc_core::sc_module_name n, int sm = 0)
      : sc_module(n),
        out("out"),
        sm_(sm),
        port_(
            "port",
            [this](Gp& g, tlm::tlm_phase& ph, sc_core::sc_time& t) { return out->nb_transport_fw(g, ph, t); },
            [this](Gp& g) { on_resp(g); }) {
    out.register_nb_transport_bw(this, &TrafficGen::bw);
    port_.on_req_done = [this] { accepted.at(next_accept_++) = now_cycles(); };
    SC_THREAD(run);
  }

  double latency(size_t i) const { return responded.at(i) - static_cast<double>(script.at(i).cycle); }

 private:
  static double now_cycles() { return sc_core::sc_time_stamp() / sc_core::sc_time(1, sc_core::SC_NS); }
  tlm::tlm_sync_enum bw(Gp& g, tlm::tlm_phase& ph, sc_core::sc_time& t) {
    return port_.nb_transport_bw(g, ph, t);
  }
  void run() {
    accepted.assign(script.size(), -1);
    responded.assign(script.size(), -1);
    l1_marks.assign(script.size(), -2);
    status.assign(script.size(), tlm::TLM_INCOMPLETE_RESPONSE);
    error_at.assign(script.size(), "");
    for (size_t i = 0; i < script.size(); ++i) {
      const auto at = sc_core::sc_time(static_cast<double>(script[i].cycle), sc_core::SC_NS);
      if (at > sc_core::sc_time_stamp()) wait(at - sc_core::sc_time_stamp());
      Gp& g = pool_.get(script[i].cmd, script[i].addr, script[i].len);
      auto* ext = g.get_extension<RequestExt>();
      ext->sm = sm_;
      ext->warp = static_cast<int>(i);
      ext->lane_mask = ~0u;
      ext->atomics = script[i].atomics;
      ext->coherent = script[i].coherent;
      index_[&g] = i;
      port_.send(g);
    }
  }
  void on_resp(Gp& g) {
    responded.at(index_.at(&g)) = now_cycles();
    const auto* ext = g.get_extension<RequestExt>();
    l1_marks.at(index_.at(&g)) = ext->looked_up ? int(ext->hit) : -1;
    status.at(index_.at(&g)) = g.get_response_status();
    error_at.at(index_.at(&g)) = ext->error_at;
    index_.erase(&g);
    g.release();
  }

  int sm_;
  PayloadPool pool_;
  AtInitiatorPort port_;
  std::unordered_map<Gp*, size_t> index_;
  size_t next_accept_ = 0;
};

}  // namespace simtlm::mem::test
