#pragma once
// What every DRAM channel backend shares: its parameters, the target socket its L2 banks bind to, the AT
// ports behind it, a bounded number of requests held, and the statistics. The backends (Dram: banks and
// rows; FixedLatencyDram: a fixed latency) only decide when a request is answered. `in` serves the whole
// base protocol (docs/tlm-protocol.md): nb_transport_fw; b_transport through the same path (queue, banks,
// rows, as an AT request); transport_dbg from the BackingStore when one is set (0 bytes otherwise); DMI
// refused. Requests carry no data through the timing path: the functional model owns the bytes.
#include <tlm_utils/multi_passthrough_target_socket.h>

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <systemc>
#include <tlm>
#include <unordered_set>
#include <vector>

#include "models/mem/at_ports.hpp"
#include "models/mem/backing_store.hpp"
#include "models/mem/mem_stats.hpp"
#include "models/mem/queue_occupancy.hpp"
#include "models/mem/request_ext.hpp"

namespace simtlm::mem {

struct DramParams {
  uint32_t ports = 1;  // exactly this many initiators must bind `in`
  uint32_t banks = 16;
  uint32_t row_bytes = 2048;  // bytes per row per bank (page size)
  uint32_t bus_bytes = 4;     // data bus width of the channel
  uint32_t burst_length = 8;  // beats per column access; DDR: burst_length / 2 clocks of data
  // Timing in DRAM clocks.
  uint32_t tCL = 12, tRCD = 12, tRP = 12, tRAS = 28, tCCD = 2;
  double clock_ratio = 924.0 / 700.0;  // DRAM command clock frequency / core clock frequency (GDDR5's)
  uint32_t queue_depth = 32;           // requests held by the scheduler before back-pressure
  // Channel interleaving: these address bits select the channel and are removed before bank/row mapping.
  uint32_t channels = 1;
  uint32_t channel_interleave_bytes = 256;
  bool in_order = false;            // FCFS instead of FR-FCFS
  bool fixed_latency_mode = false;  // the backend is a FixedLatencyDram (make_dram_channel)
  uint32_t fixed_latency = 300;     // core cycles, in fixed-latency mode; unlimited overlap up to queue_depth
  // Fault injection (tests; no configuration key): requests touching [error_base, error_base + error_bytes)
  // are answered TLM_ADDRESS_ERROR_RESPONSE, at the usual time.
  uint64_t error_base = 0, error_bytes = 0;
  sc_core::sc_time clock = sc_core::sc_time(1, sc_core::SC_NS);  // core clock

  // GDDR5 as in GPGPU-Sim's GTX 480 configuration (924 MHz command clock against a 700 MHz core).
  static DramParams gddr5() {
    DramParams p;
    p.clock_ratio = 924.0 / 700.0;
    return p;
  }
  static DramParams fixed(uint32_t cycles) {
    DramParams p;
    p.fixed_latency_mode = true;
    p.fixed_latency = cycles;
    return p;
  }
};

struct DramStats {
  uint64_t reads = 0, writes = 0, row_hits = 0, row_misses = 0, bytes = 0, read_bytes = 0, write_bytes = 0;
  uint64_t rejections = 0;  // requests whose END_REQ was withheld (queue full)
  sc_core::sc_time latency_sum, latency_max;
  uint64_t completed = 0;
  double occupancy_integral_ps = 0;  // sum of queue size x time
};

class DramChannel : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<DramChannel> in;

  const DramParams& params() const { return p_; }
  const DramStats& stats() const { return stats_; }
  // Where transport_dbg reads and writes and DMI points (not owned; nullptr: it answers 0 bytes and grants
  // no DMI). Changing it invalidates every DMI pointer granted before (once bound).
  void set_backing_store(BackingStore* store);
  stats::Group statistics() const;  // of dram_stats_decl()
  nlohmann::json stats_json() const { return statistics().json(); }
  // --trace-vcd: NAME.queue, the requests the channel holds.
  void trace_waves(Waves& waves) const { queue_occupancy_.trace(waves, std::string(name()) + ".queue"); }

 protected:
  DramChannel(sc_core::sc_module_name name, const DramParams& params);

  // Requests the backend holds now (queued or in flight): what queue_depth bounds.
  virtual uint64_t held() const = 0;
  virtual bool accept(uint32_t port, Gp& p) = 0;
  // True when the request must wait (queue_depth reached); counts each withheld request once.
  bool full(Gp& p);
  // Accounts the time the current number of held requests lasted; call before that number changes.
  void note_occupancy();
  void note_held() { queue_occupancy_.set(held()); }
  void complete(uint32_t port, Gp& p, const sc_core::sc_time& arrival, const sc_core::sc_time& delay);
  void retry_ports();

  const DramParams p_;
  DramStats stats_;

 private:
  void end_of_elaboration() override;
  tlm::tlm_sync_enum fw(int port, Gp& p, tlm::tlm_phase& ph, sc_core::sc_time& t);
  void b_transport(int port, Gp& p, sc_core::sc_time& t) { ports_.at(port)->b_transport(p, t); }
  unsigned transport_dbg(int port, Gp& p);
  // DMI over the backing store: the bytes are the functional model's device memory, which every channel
  // shares, so the region is the allocation's (within one page), not only this channel's interleaved part.
  bool get_direct_mem_ptr(int, Gp& p, tlm::tlm_dmi& dmi);

  BackingStore* store_ = nullptr;
  bool elaborated_ = false;

  std::unordered_set<const Gp*> refused_;
  sc_core::sc_time occ_changed_;
  QueueOccupancy queue_occupancy_;  // queue_max and the time at queue_depth
  std::vector<std::unique_ptr<AtTargetPort>> ports_;
};

// The backend the parameters select: a FixedLatencyDram in fixed-latency mode (dram.mode: fixed), else a
// Dram.
std::unique_ptr<DramChannel> make_dram_channel(sc_core::sc_module_name name, const DramParams& params);

}  // namespace simtlm::mem
