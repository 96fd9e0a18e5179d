#include "models/mem/dram.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace simtlm::mem {

using sc_core::sc_time;

Dram::Dram(sc_core::sc_module_name name, const DramParams& params)
    : sc_module(name),
      in("in"),
      p_(params),
      banks_(p_.banks),
      queue_occupancy_(p_.queue_depth),
      timeline_("timeline") {
  if (p_.ports == 0 || p_.banks == 0 || p_.row_bytes == 0 || p_.bus_bytes == 0 || p_.burst_length < 2 ||
      p_.clock_ratio <= 0 || p_.queue_depth == 0 || p_.channels == 0 || p_.channel_interleave_bytes == 0)
    throw std::invalid_argument("DramParams: counts, sizes and ratios must be positive");
  in.register_nb_transport_fw(this, &Dram::fw);
  for (uint32_t i = 0; i < p_.ports; ++i)
    ports_.push_back(std::make_unique<AtTargetPort>(
        "port", [this, i](Gp& g, tlm::tlm_phase& ph, sc_time& t) { return in[i]->nb_transport_bw(g, ph, t); },
        [this, i](Gp& g) { return accept(i, g); }));
  SC_METHOD(schedule);
  sensitive << wake_;
  dont_initialize();
}

void Dram::end_of_elaboration() {
  if (in.size() != p_.ports)
    SC_REPORT_ERROR("simtlm/mem", (std::string(name()) + ": bound ports differ from DramParams").c_str());
}

tlm::tlm_sync_enum Dram::fw(int port, Gp& p, tlm::tlm_phase& ph, sc_time& t) {
  return ports_.at(port)->nb_transport_fw(p, ph, t);
}

void Dram::note_occupancy() {
  const sc_time now = sc_core::sc_time_stamp();
  const uint64_t n = p_.fixed_latency_mode ? in_flight_ : queue_.size();
  stats_.occupancy_integral_ps += static_cast<double>(n) * (now - occ_changed_).value();
  occ_changed_ = now;
}

bool Dram::accept(uint32_t port, Gp& p) {
  const uint64_t held = p_.fixed_latency_mode ? in_flight_ : queue_.size();
  if (held >= p_.queue_depth) {
    if (refused_.insert(&p).second) ++stats_.rejections;
    return false;
  }
  refused_.erase(&p);
  note_occupancy();
  const sc_time now = sc_core::sc_time_stamp();
  Req r{&p, port, 0, 0, now};
  if (p_.fixed_latency_mode) {
    ++in_flight_;
    queue_occupancy_.set(in_flight_);
    complete(r, p_.clock * static_cast<double>(p_.fixed_latency));
    timeline_.at(p_.clock * static_cast<double>(p_.fixed_latency), [this] {
      note_occupancy();
      --in_flight_;
      queue_occupancy_.set(in_flight_);
      for (auto& port : ports_) port->retry();
    });
    return true;
  }
  // Strip the channel bits, then: column within a row, bank, row.
  const uint64_t a = p.get_address(), il = p_.channel_interleave_bytes;
  const uint64_t local = a / (il * p_.channels) * il + a % il;
  r.bank = (local / p_.row_bytes) % p_.banks;
  r.row = local / (uint64_t{p_.row_bytes} * p_.banks);
  queue_.push_back(r);
  queue_occupancy_.set(queue_.size());
  wake_.notify(sc_core::SC_ZERO_TIME);
  return true;
}

void Dram::complete(Req& r, const sc_time& delay) {
  Gp& p = *r.p;
  ++(p.is_read() ? stats_.reads : stats_.writes);
  stats_.bytes += p.get_data_length();
  (p.is_read() ? stats_.read_bytes : stats_.write_bytes) += p.get_data_length();
  const sc_time lat = sc_core::sc_time_stamp() + delay - r.arrival;
  stats_.latency_sum += lat;
  stats_.latency_max = std::max(stats_.latency_max, lat);
  ++stats_.completed;
  p.set_response_status(tlm::TLM_OK_RESPONSE);
  ports_[r.port]->respond(p, delay);
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
      Req r = *it;
      queue_.erase(it);
      queue_occupancy_.set(queue_.size());
      complete(r, dclk(p_.tCL + (bursts - 1) * step + p_.burst_length / 2));
      for (auto& port : ports_) port->retry();
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

nlohmann::json Dram::stats_json() const {
  const double now_ps = static_cast<double>(sc_core::sc_time_stamp().value());
  const double cycles_now = now_ps / static_cast<double>(p_.clock.value());
  const double occ =
      stats_.occupancy_integral_ps + static_cast<double>(p_.fixed_latency_mode ? in_flight_ : queue_.size()) *
                                         (now_ps - static_cast<double>(occ_changed_.value()));
  const double clk = static_cast<double>(p_.clock.value());
  return {{"reads", stats_.reads},
          {"writes", stats_.writes},
          {"row_hits", stats_.row_hits},
          {"row_misses", stats_.row_misses},
          {"bytes", stats_.bytes},
          {"read_bytes", stats_.read_bytes},
          {"write_bytes", stats_.write_bytes},
          {"bandwidth_bytes_per_cycle", cycles_now > 0 ? stats_.bytes / cycles_now : 0.0},
          {"latency_avg_cycles",
           stats_.completed ? static_cast<double>(stats_.latency_sum.value()) / clk / stats_.completed : 0.0},
          {"latency_max_cycles", static_cast<double>(stats_.latency_max.value()) / clk},
          {"queue_avg", now_ps > 0 ? occ / now_ps : 0.0},
          {"queue_max", queue_occupancy_.max()},
          {"queue_cycles_full", queue_occupancy_.cycles_full(p_.clock)},
          {"rejections", stats_.rejections}};
}

}  // namespace simtlm::mem
