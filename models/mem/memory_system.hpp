#pragma once
// The memory hierarchy below the SMs' load/store units, built from its parameters: a per-SM L1 (or none),
// the crossbar, the L2 banks (or none), and one DRAM channel backend per channel (Dram or FixedLatencyDram,
// chosen by DramParams, or any module with a TLM target socket bound in a channel's place). A module of its
// own ("memory" unless named): the components are its children, "gpu.memory.l1_0", "gpu.memory.dram1", ...
// (docs/systemc.md, "Hierarchy").
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "models/mem/cache.hpp"
#include "models/mem/crossbar.hpp"
#include "models/mem/drain.hpp"
#include "models/mem/dram_channel.hpp"
#include "models/mem/tlm_checker.hpp"

namespace simtlm::mem {

struct MemoryParams {
  uint32_t sms = 1;  // SM-side ports
  bool l1_enabled = true;
  double l1_disabled_fraction = 0;  // of every L1's lines (Cache::disable_fraction)
  // Random pollution of every L1 (Cache::pollute), drawn once before the first kernel and kept for the
  // whole run; SM i's lines come from pollution_seed_for(l1_pollution_seed, i).
  double l1_pollution = 0;
  uint64_t l1_pollution_seed = 1;
  CacheParams l1 = CacheParams::l1();
  // Without the L2 the crossbar's bank ports lead straight to the DRAM channels (GT200): l2_banks memory
  // partitions interleaved by l2.line_bytes, no caching and no atomic unit.
  bool l2_enabled = true;
  CacheParams l2 = default_l2_bank();  // one bank
  uint32_t l2_banks = 2;
  CrossbarParams xbar = default_xbar();  // in_ports = sms, out_ports = l2_banks
  DramParams dram =
      default_dram();  // one channel; dram.channels of them, each behind l2_banks / channels banks

  // The defaults are the schema's (docs/configs.md): two L2 banks of 128 KB interleaved by their 128-byte
  // line, two GDDR5 channels (testbenches/timing/test_config_width.cpp checks them against gpu_params()).
  static CacheParams default_l2_bank() {
    CacheParams p = CacheParams::l2();
    p.size_bytes /= 2;
    p.slices = 2;
    return p;
  }
  static CrossbarParams default_xbar() {
    CrossbarParams x;
    x.out_ports = 2;
    x.interleave_bytes = 128;
    return x;
  }
  static DramParams default_dram() {
    DramParams d;
    d.channels = 2;
    d.channel_interleave_bytes = 128;
    return d;
  }

  // A base-protocol checker (tlm_checker.hpp) on every link: SM to L1 (or crossbar), L1 to crossbar,
  // crossbar to L2 (or DRAM), L2 to DRAM (run.tlm_check).
  bool tlm_check = false;

  // The line of the first cache an SM's requests reach: no request is larger.
  uint32_t first_line_bytes() const { return l1_enabled ? l1.line_bytes : l2.line_bytes; }
};

// Any TLM-2.0 target socket of the base protocol (simple, passthrough or multi-passthrough).
using TargetSocket =
    tlm::tlm_base_target_socket_b<32, tlm::tlm_fw_transport_if<>, tlm::tlm_bw_transport_if<>>;

class MemorySystem : public sc_core::sc_module {
 public:
  // Returns the target socket that stands in DRAM channel `channel`'s place; its module must accept
  // params.dram.ports bindings (one per L2 bank of the channel) and outlive the simulation.
  using ChannelTarget = std::function<TargetSocket&(uint32_t channel)>;

  // Without channel_target, every channel is the backend DramParams selects (make_dram_channel).
  MemorySystem(sc_core::sc_module_name name, const MemoryParams& params,
               const ChannelTarget& channel_target = {});
  // Named "memory" (a second one in the same parent "memory_0", ...).
  explicit MemorySystem(const MemoryParams& params, const ChannelTarget& channel_target = {})
      : MemorySystem(sc_core::sc_gen_unique_name("memory", /*preserve_first=*/true), params, channel_target) {
  }
  MemorySystem(const MemorySystem&) = delete;
  MemorySystem& operator=(const MemorySystem&) = delete;

  // Where SM `sm`'s load/store unit binds: its L1, or a crossbar port. Bind the SMs in order 0, 1, ...
  TargetSocket& sm_port(uint32_t sm);

  // The end of a kernel, after the SMs' requests are answered: write-back L1s send their dirty lines (and
  // write-through L1s' stores in flight reach the L2), then the L2 banks write theirs back to DRAM;
  // written_back runs when DRAM has acknowledged the last write.
  std::vector<DrainSequence::Step> write_back_steps(std::function<void()> written_back);
  // Lets `drain` see the caches go idle.
  void watch_idle(DrainSequence& drain) const;
  // Debug transport's bytes (docs/tlm-protocol.md): every built-in DRAM channel answers transport_dbg from
  // `store` (not owned), or from the functional model's device memory (a GlobalMemoryStore kept here).
  void set_backing_store(BackingStore* store);
  void set_device_memory(ptx::GlobalMemory* memory);
  // Told of an error response to a write a cache had already acknowledged (errors of requests an SM waits
  // for reach its load/store unit with the response).
  void on_error(const std::function<void(const std::string&)>& fn);
  // Grows whenever a request is accepted or answered anywhere below the SMs (the run's watchdog).
  uint64_t progress() const;
  // --trace-vcd: every component's signals (Cache, Crossbar and DramChannel::trace_waves),
  // under its module path.
  void trace_waves(Waves& waves);

  const MemoryParams& params() const { return p_; }
  const std::vector<std::unique_ptr<L1Cache>>& l1s() const { return l1_; }
  const Crossbar& crossbar() const { return *xbar_; }
  const std::vector<std::unique_ptr<L2Cache>>& l2s() const { return l2_; }  // empty without the L2
  // The built-in backends, in channel order; none for the channels a ChannelTarget replaced.
  const std::vector<std::unique_ptr<DramChannel>>& dram_channels() const { return dram_; }
  // The links' protocol checkers (empty unless params.tlm_check), named after the link ("check_l1_0_xbar").
  const std::vector<std::unique_ptr<TlmChecker>>& tlm_checkers() const { return checkers_; }

 private:
  const MemoryParams p_;
  std::unique_ptr<Crossbar> xbar_;
  std::vector<std::unique_ptr<L1Cache>> l1_;
  std::vector<std::unique_ptr<DramChannel>> dram_;
  std::vector<std::unique_ptr<L2Cache>> l2_;
  std::vector<std::unique_ptr<TlmChecker>> checkers_;
  std::vector<TlmChecker*> sm_checkers_;  // in front of each SM's port, with params.tlm_check
  std::unique_ptr<GlobalMemoryStore> device_store_;
  uint32_t next_sm_ = 0;

  // Binds initiator to target, through a new checker named `link` when params.tlm_check.
  template <typename Initiator>
  void link(Initiator& initiator, TargetSocket& target, const std::string& name);
};

}  // namespace simtlm::mem
