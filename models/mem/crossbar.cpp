#include "models/mem/crossbar.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace simtlm::mem {

using sc_core::sc_time;

Crossbar::Crossbar(sc_core::sc_module_name name, const CrossbarParams& params)
    : sc_module(name),
      in("in"),
      out("out"),
      p_(params),
      req_link_free_(p_.in_ports, sc_core::SC_ZERO_TIME),
      resp_link_free_(p_.in_ports, sc_core::SC_ZERO_TIME),
      in_stats_(p_.in_ports),
      bank_requests_(p_.out_ports, 0),
      bank_queue_(p_.out_ports, QueueOccupancy(p_.bank_queue)),
      refused_(p_.in_ports, nullptr),
      target_names_(p_.out_ports),
      retry_timeline_("retry") {
  if (p_.in_ports == 0 || p_.out_ports == 0 || p_.bytes_per_cycle == 0 || p_.interleave_bytes == 0 ||
      p_.bank_queue == 0)
    throw std::invalid_argument("CrossbarParams: counts and widths must be positive");
  in.register_nb_transport_fw(this, &Crossbar::fw);
  in.register_b_transport(this, &Crossbar::b_transport);
  in.register_transport_dbg(this, &Crossbar::transport_dbg);
  in.register_get_direct_mem_ptr(this, &Crossbar::get_direct_mem_ptr);
  out.register_nb_transport_bw(this, &Crossbar::bw);
  for (uint32_t i = 0; i < p_.in_ports; ++i) {
    in_ports_.push_back(std::make_unique<AtTargetPort>(
        ("in_port_" + std::to_string(i)).c_str(),
        [this, i](Gp& g, tlm::tlm_phase& ph, sc_time& t) { return in[i]->nb_transport_bw(g, ph, t); },
        [this, i](Gp& g) { return accept(i, g); }, /*interconnect=*/true));
  }
  for (uint32_t b = 0; b < p_.out_ports; ++b) {
    target_names_[b] = std::string("the target bound to ") + out.name() + "[" + std::to_string(b) + "]";
    out_ports_.push_back(std::make_unique<AtInitiatorPort>(
        ("out_port_" + std::to_string(b)).c_str(),
        [this, b](Gp& g, tlm::tlm_phase& ph, sc_time& t) { return out[b]->nb_transport_fw(g, ph, t); },
        [this, b](Gp& g) { on_resp(b, g); }));
    out_ports_.back()->on_req_done = [this, b] {
      bank_queue_[b].set(bank_queue_[b].size() - 1);
      for (auto& port : in_ports_) port->retry();
    };
  }
}

void Crossbar::end_of_elaboration() {
  if (in.size() != p_.in_ports || out.size() != p_.out_ports)
    SC_REPORT_ERROR("simtlm/mem", (std::string(name()) + ": bound ports differ from CrossbarParams").c_str());
}

tlm::tlm_sync_enum Crossbar::fw(int port, Gp& p, tlm::tlm_phase& ph, sc_time& t) {
  return in_ports_.at(port)->nb_transport_fw(p, ph, t);
}

tlm::tlm_sync_enum Crossbar::bw(int port, Gp& p, tlm::tlm_phase& ph, sc_time& t) {
  return out_ports_.at(port)->nb_transport_bw(p, ph, t);
}

bool Crossbar::accept(uint32_t port, Gp& p) {
  const sc_time now = sc_core::sc_time_stamp();
  const uint32_t bank = bank_of(p.get_address());
  auto& st = in_stats_[port];
  if (req_link_free_[port] > now || bank_queue_[bank].full()) {
    if (refused_[port] != &p) ++st.stalls;
    refused_[port] = &p;
    // A busy link frees at a known time; a full bank queue retries on its END_REQ.
    if (req_link_free_[port] > now)
      retry_timeline_.at(req_link_free_[port] - now, [this, port] { in_ports_[port]->retry(); });
    return false;
  }
  refused_[port] = nullptr;
  // Only stores carry data on the request path; a read request is a header taking one link cycle.
  const unsigned bytes = p.is_write() ? p.get_data_length() : 0;
  const uint64_t ser = transfer_cycles(bytes);
  req_link_free_[port] = now + cycles(p_.clock, std::max<uint64_t>(ser, 1));
  ++st.requests;
  st.req_bytes += bytes;
  ++bank_requests_[bank];
  bank_queue_[bank].set(bank_queue_[bank].size() + 1);
  origin_[&p] = port;
  out_ports_[bank]->send(p, cycles(p_.clock, p_.latency + ser));
  return true;
}

unsigned Crossbar::transport_dbg(int, Gp& p) {
  // Piece by piece within one interleaving unit, each to its bank; stops at the first short answer.
  const uint64_t addr = p.get_address();
  const unsigned len = p.get_data_length();
  const unsigned char* mask = p.get_byte_enable_ptr();
  const unsigned mask_len = p.get_byte_enable_length();
  unsigned done = 0;
  while (done < len) {
    const uint64_t at = addr + done;
    const auto chunk =
        static_cast<unsigned>(std::min<uint64_t>(len - done, p_.interleave_bytes - at % p_.interleave_bytes));
    if (chunk == len) return out[bank_of(addr)]->transport_dbg(p);
    Gp piece;
    piece.set_command(p.get_command());
    piece.set_address(at);
    piece.set_data_ptr(p.get_data_ptr() + done);
    piece.set_data_length(chunk);
    piece.set_streaming_width(chunk);
    std::vector<unsigned char> enables;
    if (mask && mask_len) {
      for (unsigned i = 0; i < chunk; ++i) enables.push_back(mask[(done + i) % mask_len]);
      piece.set_byte_enable_ptr(enables.data());
      piece.set_byte_enable_length(chunk);
    }
    const unsigned n = out[bank_of(at)]->transport_dbg(piece);
    done += n;
    if (n < chunk) break;
  }
  return done;
}

void Crossbar::on_resp(uint32_t bank, Gp& p) {
  mark_error_source(p, target_names_[bank]);
  const sc_time now = sc_core::sc_time_stamp();
  const uint32_t port = origin_.at(&p);
  origin_.erase(&p);
  const unsigned bytes = p.is_read() ? p.get_data_length() : 0;
  const uint64_t ser = transfer_cycles(bytes);
  // Responses share the port's return link: serialise behind earlier ones.
  const sc_time start = std::max(now, resp_link_free_[port]);
  resp_link_free_[port] = start + cycles(p_.clock, std::max<uint64_t>(ser, 1));
  auto& st = in_stats_[port];
  ++st.responses;
  st.resp_bytes += bytes;
  in_ports_[port]->respond(p, (start - now) + cycles(p_.clock, p_.latency + ser));
}

stats::Group Crossbar::statistics() const {
  stats::Group g(crossbar_stats_decl());
  for (const auto& s : in_stats_) fill_crossbar_port_stats(g.add_list_row("ports"), s);
  for (const uint64_t n : bank_requests_) g.vector("bank_requests").emplace_back(n);
  for (const QueueOccupancy& q : bank_queue_) {
    g.vector("bank_queue_max").emplace_back(q.max());
    g.vector("bank_queue_cycles_full").emplace_back(q.cycles_full(p_.clock));
  }
  return g;
}

void Crossbar::trace_waves(Waves& waves) {
  const std::string base = name();
  for (uint32_t b = 0; b < p_.out_ports; ++b) {
    bank_queue_[b].trace(waves, base + ".bank" + std::to_string(b) + "_queue");
    out_ports_[b]->trace(waves, base + ".out_" + std::to_string(b));
  }
}

}  // namespace simtlm::mem
