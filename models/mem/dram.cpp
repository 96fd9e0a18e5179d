#include "models/mem/dram.hpp"

#include <algorithm>
#include <stdexcept>

namespace simtlm::mem {

using sc_core::sc_time;

Dram::Dram(sc_core::sc_module_name name, const DramParams& params)
    : DramChannel(name, params), banks_(p_.banks) {
  if (p_.fixed_latency_mode)
    throw std::invalid_argument("DramParams: fixed-latency mode is a FixedLatencyDram (make_dram_channel)");
  declare_method_process(schedule_handle, "schedule_method", SC_CURRENT_USER_MODULE, schedule);
  sensitive << wake_;
  dont_initialize();
}

bool Dram::accept(uint32_t port, Gp& p) {
  if (full(p)) return false;
  note_occupancy();
  // Strip the channel bits, then: column within a row, bank, row.
  const uint64_t a = p.get_address(), il = p_.channel_interleave_bytes;
  const uint64_t local = a / (il * p_.channels) * il + a % il;
  const auto bank = static_cast<uint32_t>((local / p_.row_bytes) % p_.banks);
  const uint64_t row = local / (uint64_t{p_.row_bytes} * p_.banks);
  queue_.push_back(Req{&p, port, bank, row, sc_core::sc_time_stamp()});
  note_held();
  wake_.notify(sc_core::SC_ZERO_TIME);
  return true;
}

// FCFS (in_order): only the oldest request is served, its row opened when needed.
// FR-FCFS: the oldest request to an open, ready row gets the data bus first; a bank with no such request
// precharges and activates for its oldest request. Rows are kept open while requests still hit them.
void Dram::schedule() {
  const sc_time now = sc_core::sc_time_stamp();
  // 1. One column access when the data bus is free.
  if (bus_free_ <= now) {
    for (auto it = queue_.begin(); it != queue_.end(); ++it) {
      if (p_.in_order && it != queue_.begin()) break;
      const Bank& b = banks_[it->bank];
      if (b.open_row != static_cast<int64_t>(it->row) || b.ready_at > now) continue;
      const uint32_t beats_bytes = p_.bus_bytes * p_.burst_length;
      const uint64_t bursts =
          std::max<uint64_t>(1, (it->p->get_data_length() + beats_bytes - 1) / beats_bytes);
      const uint64_t step = std::max<uint64_t>(p_.tCCD, p_.burst_length / 2);
      bus_free_ = now + dclk(bursts * step);
      ++(it->activated ? stats_.row_misses : stats_.row_hits);
      note_occupancy();
      const Req r = *it;
      queue_.erase(it);
      note_held();
      complete(r.port, *r.p, r.arrival, dclk(p_.tCL + (bursts - 1) * step + p_.burst_length / 2));
      retry_ports();
      break;
    }
  }
  // 2. Open rows for banks that have nothing left to hit.
  for (uint32_t bi = 0; bi < banks_.size(); ++bi) {
    Bank& b = banks_[bi];
    if (b.ready_at > now) continue;  // activation in progress
    if (p_.in_order && (queue_.empty() || queue_.front().bank != bi)) continue;
    Req* oldest = nullptr;
    bool hit_pending = false;
    for (auto& r : queue_) {
      if (r.bank != bi) continue;
      if (b.open_row == static_cast<int64_t>(r.row))
        hit_pending = true;
      else if (!oldest)
        oldest = &r;
    }
    if (hit_pending || !oldest) continue;
    sc_time act = now;
    if (b.open_row >= 0) act = std::max(now, b.act_at + dclk(p_.tRAS)) + dclk(p_.tRP);
    b.open_row = static_cast<int64_t>(oldest->row);
    b.act_at = act;
    b.ready_at = act + dclk(p_.tRCD);
    oldest->activated = true;
  }
  // 3. Sleep until something can happen: the bus frees or a bank finishes activating.
  sc_time next = sc_core::SC_ZERO_TIME;
  bool any = false;
  for (const auto& r : queue_) {
    const Bank& b = banks_[r.bank];
    if (b.open_row != static_cast<int64_t>(r.row)) continue;  // waits for its bank's next activation
    const sc_time t = std::max(b.ready_at, bus_free_);
    if (!any || t < next) next = t, any = true;
  }
  if (any) wake_.notify(next > now ? next - now : sc_core::SC_ZERO_TIME);
}

}  // namespace simtlm::mem
