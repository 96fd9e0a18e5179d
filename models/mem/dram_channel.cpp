#include "models/mem/dram_channel.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "models/mem/dram.hpp"
#include "models/mem/fixed_latency_dram.hpp"

namespace simtlm::mem {

using sc_core::sc_time;

DramChannel::DramChannel(sc_core::sc_module_name name, const DramParams& params)
    : sc_module(name), in("in"), p_(params), queue_occupancy_(p_.queue_depth) {
  if (p_.ports == 0 || p_.banks == 0 || p_.row_bytes == 0 || p_.bus_bytes == 0 || p_.burst_length < 2 ||
      p_.clock_ratio <= 0 || p_.queue_depth == 0 || p_.channels == 0 || p_.channel_interleave_bytes == 0)
    throw std::invalid_argument("DramParams: counts, sizes and ratios must be positive");
  in.register_nb_transport_fw(this, &DramChannel::fw);
  in.register_b_transport(this, &DramChannel::b_transport);
  in.register_transport_dbg(this, &DramChannel::transport_dbg);
  in.register_get_direct_mem_ptr(this, &DramChannel::get_direct_mem_ptr);
  for (uint32_t i = 0; i < p_.ports; ++i)
    ports_.push_back(std::make_unique<AtTargetPort>(
        ("port_" + std::to_string(i)).c_str(),
        [this, i](Gp& g, tlm::tlm_phase& ph, sc_time& t) { return in[i]->nb_transport_bw(g, ph, t); },
        [this, i](Gp& g) { return accept(i, g); }));
}

void DramChannel::end_of_elaboration() {
  if (in.size() != p_.ports)
    SC_REPORT_ERROR("simtlm/mem", (std::string(name()) + ": bound ports differ from DramParams").c_str());
  elaborated_ = true;
}

void DramChannel::set_backing_store(BackingStore* store) {
  if (store == store_) return;
  store_ = store;
  for (int i = 0; elaborated_ && i < static_cast<int>(in.size()); ++i)
    in[i]->invalidate_direct_mem_ptr(0, ~sc_dt::uint64{0});
}

bool DramChannel::get_direct_mem_ptr(int, Gp& p, tlm::tlm_dmi& dmi) {
  uint64_t first = 0, last = 0;
  uint8_t* bytes = store_ ? store_->direct(p.get_address(), first, last) : nullptr;
  if (!bytes) {  // only this address: others may be granted
    dmi.allow_none();
    dmi.set_start_address(p.get_address());
    dmi.set_end_address(p.get_address());
    return false;
  }
  dmi.set_dmi_ptr(bytes);
  dmi.set_start_address(first);
  dmi.set_end_address(last);
  dmi.allow_read_write();
  // What an access costs at best: a row hit (CAS latency and the burst), in simulated time.
  const sc_time tck = p_.clock / p_.clock_ratio;
  dmi.set_read_latency(tck * double(p_.tCL + p_.burst_length / 2));
  dmi.set_write_latency(tck * double(p_.tCL + p_.burst_length / 2));
  return true;
}

tlm::tlm_sync_enum DramChannel::fw(int port, Gp& p, tlm::tlm_phase& ph, sc_time& t) {
  return ports_.at(port)->nb_transport_fw(p, ph, t);
}

unsigned DramChannel::transport_dbg(int, Gp& p) {
  if (!store_ || p.get_command() == tlm::TLM_IGNORE_COMMAND) return 0;
  const uint64_t addr = p.get_address();
  const auto n = static_cast<unsigned>(store_->available(addr, p.get_data_length()));
  unsigned char* data = p.get_data_ptr();
  const unsigned char* mask = p.get_byte_enable_ptr();
  const unsigned mask_len = p.get_byte_enable_length();
  if (!mask || mask_len == 0) {
    if (p.is_read()) {
      store_->read(addr, data, n);
    } else {
      store_->write(addr, data, n);
    }
    return n;
  }
  for (unsigned i = 0; i < n; ++i) {  // disabled bytes stay untouched on either side
    if (mask[i % mask_len] != TLM_BYTE_ENABLED) continue;
    if (p.is_read()) {
      store_->read(addr + i, data + i, 1);
    } else {
      store_->write(addr + i, data + i, 1);
    }
  }
  return n;
}

bool DramChannel::full(Gp& p) {
  if (held() >= p_.queue_depth) {
    if (refused_.insert(&p).second) ++stats_.rejections;
    return true;
  }
  refused_.erase(&p);
  return false;
}

void DramChannel::note_occupancy() {
  const sc_time now = sc_core::sc_time_stamp();
  stats_.occupancy_integral_ps += static_cast<double>(held()) * (now - occ_changed_).value();
  occ_changed_ = now;
}

void DramChannel::complete(uint32_t port, Gp& p, const sc_time& arrival, const sc_time& delay) {
  ++(p.is_read() ? stats_.reads : stats_.writes);
  stats_.bytes += p.get_data_length();
  (p.is_read() ? stats_.read_bytes : stats_.write_bytes) += p.get_data_length();
  const sc_time lat = sc_core::sc_time_stamp() + delay - arrival;
  stats_.latency_sum += lat;
  stats_.latency_max = std::max(stats_.latency_max, lat);
  ++stats_.completed;
  const uint64_t a = p.get_address(), end = a + std::max(p.get_data_length(), 1u);
  const bool fault = p_.error_bytes && a < p_.error_base + p_.error_bytes && end > p_.error_base;
  p.set_response_status(fault ? tlm::TLM_ADDRESS_ERROR_RESPONSE : tlm::TLM_OK_RESPONSE);
  mark_error_source(p, name());
  ports_[port]->respond(p, delay);
}

void DramChannel::retry_ports() {
  for (auto& port : ports_) port->retry();
}

stats::Group DramChannel::statistics() const {
  const double now_ps = static_cast<double>(sc_core::sc_time_stamp().value());
  const double cycles_now = now_ps / static_cast<double>(p_.clock.value());
  const double occ = stats_.occupancy_integral_ps +
                     static_cast<double>(held()) * (now_ps - static_cast<double>(occ_changed_.value()));
  const double clk = static_cast<double>(p_.clock.value());
  stats::Group g(dram_stats_decl());
  g.set("reads", stats_.reads);
  g.set("writes", stats_.writes);
  g.set("row_hits", stats_.row_hits);
  g.set("row_misses", stats_.row_misses);
  g.set("bytes", stats_.bytes);
  g.set("read_bytes", stats_.read_bytes);
  g.set("write_bytes", stats_.write_bytes);
  g.set("bandwidth_bytes_per_cycle", cycles_now > 0 ? stats_.bytes / cycles_now : 0.0);
  g.set("latency_avg_cycles",
        stats_.completed ? static_cast<double>(stats_.latency_sum.value()) / clk / stats_.completed : 0.0);
  g.set("latency_max_cycles", static_cast<double>(stats_.latency_max.value()) / clk);
  g.set("queue_avg", now_ps > 0 ? occ / now_ps : 0.0);
  g.set("queue_max", queue_occupancy_.max());
  g.set("queue_cycles_full", queue_occupancy_.cycles_full(p_.clock));
  g.set("rejections", stats_.rejections);
  return g;
}

std::unique_ptr<DramChannel> make_dram_channel(sc_core::sc_module_name name, const DramParams& params) {
  if (params.fixed_latency_mode) return std::make_unique<FixedLatencyDram>(name, params);
  return std::make_unique<Dram>(name, params);
}

}  // namespace simtlm::mem
