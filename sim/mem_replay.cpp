#include "sim/mem_replay.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <vector>

#include "hw/sc/reports.hpp"
#include "hw/sc/timing_params.hpp"
#include "models/mem/at_ports.hpp"
#include "models/mem/memory_system.hpp"
#include "models/mem/payload_pool.hpp"

namespace simtlm::sim {
namespace {

// Sends every request of the trace at its cycle (or later, in order, when the memory back-pressures) and
// records when each response arrived.
class ReplayInitiator : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<ReplayInitiator> out;
  std::vector<sc_core::sc_time> sent, answered;

  SC_HAS_PROCESS(ReplayInitiator);
  ReplayInitiator(sc_core::sc_module_name name, const mem::MemTrace& trace, const ReplayOptions& options,
                  const sc_core::sc_time& clock)
      : sc_module(name),
        out("out"),
        trace_(trace),
        options_(options),
        clock_(clock),
        port_(
            "port",
            [this](mem::Gp& g, tlm::tlm_phase& ph, sc_core::sc_time& t) {
              return out->nb_transport_fw(g, ph, t);
            },
            [this](mem::Gp& g) { on_response(g); }) {
    out.register_nb_transport_bw(this, &ReplayInitiator::bw);
    declare_thread_process(issue_handle, "issue_thread", SC_CURRENT_USER_MODULE, issue);
  }

 private:
  tlm::tlm_sync_enum bw(mem::Gp& g, tlm::tlm_phase& ph, sc_core::sc_time& t) {
    return port_.nb_transport_bw(g, ph, t);
  }

  void issue() {
    sent.assign(trace_.requests.size(), sc_core::SC_ZERO_TIME);
    answered.assign(trace_.requests.size(), sc_core::SC_ZERO_TIME);
    const uint64_t mask = ~uint64_t{options_.request_bytes - 1};
    for (size_t i = 0; i < trace_.requests.size(); ++i) {
      const mem::TraceRequest& r = trace_.requests[i];
      const sc_core::sc_time at = clock_ * static_cast<double>(r.cycle);
      if (at > sc_core::sc_time_stamp()) wait(at - sc_core::sc_time_stamp());
      mem::Gp& g = pool_.get(r.write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND, r.address & mask,
                             options_.request_bytes);
      auto* ext = g.get_extension<mem::RequestExt>();
      ext->sm = 0;
      ext->warp = 0;
      ext->lane_mask = 1;
      index_.resize(std::max<size_t>(index_.size(), mem::PayloadPool::index(g) + 1));
      index_[mem::PayloadPool::index(g)] = i;
      sent[i] = sc_core::sc_time_stamp();
      port_.send(g);
    }
  }

  void on_response(mem::Gp& g) {
    answered[index_[mem::PayloadPool::index(g)]] = sc_core::sc_time_stamp();
    g.release();
  }

  const mem::MemTrace& trace_;
  const ReplayOptions options_;
  const sc_core::sc_time clock_;
  mem::PayloadPool pool_;
  mem::AtInitiatorPort port_;
  std::vector<size_t> index_;  // per pool slot: the request it carries
};

double percentile(const std::vector<double>& sorted, double p) {
  const size_t k =
      std::min(sorted.size() - 1, static_cast<size_t>(p * static_cast<double>(sorted.size() - 1) + 0.5));
  return sorted[k];
}

}  // namespace

ReplayLevel parse_replay_level(const std::string& text) {
  if (text == "l1") return ReplayLevel::l1;
  if (text == "l2") return ReplayLevel::l2;
  if (text == "dram") return ReplayLevel::dram;
  throw std::invalid_argument("--level: expected l1, l2 or dram, not '" + text + "'");
}

nlohmann::json run_mem_replay(const config::MachineConfig& config, const mem::MemTrace& trace,
                              const ReplayOptions& options) {
  if (options.request_bytes == 0 || (options.request_bytes & (options.request_bytes - 1)) != 0)
    throw std::invalid_argument(
        fmt::format("--request-bytes {} is not a power of two", options.request_bytes));
  const hw::report::ReportActions report_actions;  // for this run only (hw/sc/reports.hpp)
  const hw::GpuParams gpu = hw::gpu_params(config);
  mem::MemoryParams params = gpu.memory;
  params.sms = 1;
  params.xbar.in_ports = 1;
  if (options.level != ReplayLevel::l1) params.l1_enabled = false;
  if (options.level == ReplayLevel::dram) params.l2_enabled = false;
  if (options.request_bytes > params.first_line_bytes())
    throw std::invalid_argument(fmt::format("--request-bytes {} exceeds the first level's {}-byte line",
                                            options.request_bytes, params.first_line_bytes()));
  const sc_core::sc_time clock = gpu.sm.clock;
  mem::MemorySystem memory(params);
  ReplayInitiator initiator("replay", trace, options, clock);
  initiator.out.bind(memory.sm_port(0));
  sc_core::sc_start();

  std::vector<double> latencies;
  for (size_t i = 0; i < trace.requests.size(); ++i)
    latencies.push_back((initiator.answered[i] - initiator.sent[i]) / clock);
  std::sort(latencies.begin(), latencies.end());
  double sum = 0;
  for (double l : latencies) sum += l;
  const double end_cycles = sc_core::sc_time_stamp() / clock;
  const uint64_t bytes = trace.requests.size() * uint64_t{options.request_bytes};
  nlohmann::json channels = nlohmann::json::array();
  for (const auto& channel : memory.dram_channels()) {
    const mem::DramStats& s = channel->stats();
    const uint64_t accesses = s.row_hits + s.row_misses;
    channels.push_back(
        {{"name", channel->basename()},
         {"reads", s.reads},
         {"writes", s.writes},
         {"row_hits", s.row_hits},
         {"row_misses", s.row_misses},
         {"row_hit_rate", accesses ? double(s.row_hits) / double(accesses) : 0.0},
         {"mean_queue_occupancy",
          end_cycles > 0 ? s.occupancy_integral_ps / (sc_core::sc_time_stamp().to_seconds() * 1e12) : 0.0},
         {"rejections", s.rejections}});
  }
  const char* level = options.level == ReplayLevel::l1   ? "l1"
                      : options.level == ReplayLevel::l2 ? "l2"
                                                         : "dram";
  return {{"level", level},
          {"format", trace.format == mem::TraceFormat::dramsim3 ? "dramsim3" : "ramulator"},
          {"requests", trace.requests.size()},
          {"request_bytes", options.request_bytes},
          {"cycles", end_cycles},
          {"clock_mhz", gpu.clock_mhz},
          {"latency_cycles",
           {{"min", latencies.front()},
            {"mean", sum / static_cast<double>(latencies.size())},
            {"p50", percentile(latencies, 0.5)},
            {"p90", percentile(latencies, 0.9)},
            {"p99", percentile(latencies, 0.99)},
            {"max", latencies.back()}}},
          {"bytes_per_cycle", end_cycles > 0 ? double(bytes) / end_cycles : 0.0},
          {"gb_per_s", end_cycles > 0 ? double(bytes) / end_cycles * gpu.clock_mhz * 1e6 / 1e9 : 0.0},
          {"dram_channels", channels}};
}

std::string describe_replay(const nlohmann::json& d) {
  const auto& l = d["latency_cycles"];
  std::string text = fmt::format(
      "{} requests of {} bytes from the {} in {:.0f} cycles: {:.2f} bytes/cycle ({:.2f} GB/s)\n"
      "latency (cycles): min {:.0f}  mean {:.1f}  p50 {:.0f}  p90 {:.0f}  p99 {:.0f}  max {:.0f}\n",
      d["requests"].get<uint64_t>(), d["request_bytes"].get<uint32_t>(), d["level"].get<std::string>(),
      d["cycles"].get<double>(), d["bytes_per_cycle"].get<double>(), d["gb_per_s"].get<double>(),
      l["min"].get<double>(), l["mean"].get<double>(), l["p50"].get<double>(), l["p90"].get<double>(),
      l["p99"].get<double>(), l["max"].get<double>());
  text += fmt::format("{:<8} {:>8} {:>8} {:>10} {:>10} {:>9}\n", "channel", "reads", "writes", "row hits",
                      "hit rate", "queue");
  for (const auto& c : d["dram_channels"]) {
    text +=
        fmt::format("{:<8} {:>8} {:>8} {:>10} {:>9.1f}% {:>9.2f}\n", c["name"].get<std::string>(),
                    c["reads"].get<uint64_t>(), c["writes"].get<uint64_t>(), c["row_hits"].get<uint64_t>(),
                    100 * c["row_hit_rate"].get<double>(), c["mean_queue_occupancy"].get<double>());
  }
  return text;
}

}  // namespace simtlm::sim
