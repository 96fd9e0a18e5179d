#include "hw/sc/load_store_unit.hpp"

#include <cmath>

namespace simtlm::hw {

LoadStoreUnit::LoadStoreUnit(sc_core::sc_module_name name, int sm, const sc_core::sc_time& clock,
                             ResponseFn respond)
    : sc_module(name),
      out("out"),
      sm_(sm),
      clock_(clock),
      on_response_(std::move(respond)),
      port_(
          "lsu_port",
          [this](mem::Gp& p, tlm::tlm_phase& ph, sc_core::sc_time& t) {
            return out->nb_transport_fw(p, ph, t);
          },
          [this](mem::Gp& p) { this->on_response(p); }) {
  out.register_nb_transport_bw(this, &LoadStoreUnit::bw);
}

uint64_t LoadStoreUnit::cycle_now() const {
  return static_cast<uint64_t>(std::ceil(sc_core::sc_time_stamp() / clock_ - 1e-9));
}

void LoadStoreUnit::send(bool write, uint64_t address, uint32_t bytes, int warp, uint32_t pc,
                         uint32_t lane_mask, uint64_t tag, uint64_t delay_cycles) {
  mem::Gp& p = pool_.get(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND, address, bytes);
  auto* ext = p.get_extension<mem::RequestExt>();
  ext->sm = sm_;
  ext->warp = warp;
  ext->pc = pc;
  ext->lane_mask = lane_mask;
  outstanding_[&p] =
      OutstandingRequest{address, bytes, write, warp, pc, cycle_now() + delay_cycles, tag, seq_++};
  port_.send(p, mem::cycles(clock_, delay_cycles));
}

void LoadStoreUnit::on_response(mem::Gp& p) {
  const auto it = outstanding_.find(&p);
  const uint64_t tag = it->second.tag;
  outstanding_.erase(it);
  p.release();
  if (tag != kNoTag) on_response_(tag);
}

const OutstandingRequest* LoadStoreUnit::oldest() const {
  const OutstandingRequest* best = nullptr;
  for (const auto& [p, r] : outstanding_) {
    if (!best || r.sent_cycle < best->sent_cycle || (r.sent_cycle == best->sent_cycle && r.seq < best->seq)) {
      best = &r;
    }
  }
  return best;
}

}  // namespace simtlm::hw
