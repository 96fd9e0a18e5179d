#include "hw/sc/load_store_unit.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

namespace simtlm::hw {

LoadStoreUnit::LoadStoreUnit(sc_core::sc_module_name name, int sm, const sc_core::sc_time& clock,
                             uint32_t line_bytes, ResponseFn respond)
    : sc_module(name),
      out("out"),
      sm_(sm),
      clock_(clock),
      line_bytes_(line_bytes),
      on_response_(std::move(respond)),
      pool_(line_bytes),
      port_(
          "lsu_port",
          [this](mem::Gp& p, tlm::tlm_phase& ph, sc_core::sc_time& t) {
            return out->nb_transport_fw(p, ph, t);
          },
          [this](mem::Gp& p) { this->on_response(p); }) {
  if (line_bytes == 0 || !std::has_single_bit(line_bytes))
    throw std::invalid_argument("LoadStoreUnit: line_bytes must be a power of two");
  out.register_nb_transport_bw(this, &LoadStoreUnit::bw);
}

uint64_t LoadStoreUnit::cycle_now() const {
  return static_cast<uint64_t>(std::ceil(sc_core::sc_time_stamp() / clock_ - 1e-9));
}

void LoadStoreUnit::send(bool write, uint64_t address, uint32_t bytes, int warp, uint32_t pc,
                         uint32_t lane_mask, uint64_t tag, uint64_t delay_cycles,
                         const std::vector<mem::AtomicTarget>& atomics) {
  const uint64_t group = seq_;
  const uint64_t end = address + std::max<uint32_t>(bytes, 1);
  uint32_t pieces = 0;
  for (uint64_t at = address; at < end; ++pieces) {
    const uint64_t piece_end = std::min(end, (at / line_bytes_ + 1) * line_bytes_);
    const auto len = static_cast<uint32_t>(piece_end - at);
    mem::Gp& p = pool_.get(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND, at, len);
    auto* ext = p.get_extension<mem::RequestExt>();
    ext->sm = sm_;
    ext->warp = warp;
    ext->pc = pc;
    ext->lane_mask = lane_mask;
    for (const mem::AtomicTarget& a : atomics) {
      if (a.address >= at && a.address < piece_end) ext->atomics.push_back(a);
    }
    outstanding_[&p] =
        OutstandingRequest{at, len, write, warp, pc, cycle_now() + delay_cycles, tag, seq_++, group};
    port_.send(p, mem::cycles(clock_, delay_cycles));
    at = piece_end;
  }
  if (pieces > 1) pieces_left_[group] = pieces;
}

void LoadStoreUnit::on_response(mem::Gp& p) {
  const auto it = outstanding_.find(&p);
  const uint64_t tag = it->second.tag, group = it->second.group;
  outstanding_.erase(it);
  p.release();
  if (outstanding_.empty()) idle_event_.notify(sc_core::SC_ZERO_TIME);
  if (const auto split = pieces_left_.find(group); split != pieces_left_.end()) {
    if (--split->second > 0) return;
    pieces_left_.erase(split);
  }
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
