// The whole GPU: N SMs and a CTA dispatcher, bound to the memory system (models/mem/memory_system.hpp: per-SM
// L1 data caches, a crossbar to the banked L2 and the DRAM channels behind it, every link a TLM-2.0 AT
// socket). It also watches the run (gpu_watchdog.cpp): a run with no progress for run.watchdog_cycles, or one
// past run.max_cycles, is reported with what each SM waits for.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <systemc>
#include <utility>
#include <vector>

#include "common/progress.hpp"
#include "common/stats.hpp"
#include "hw/sc/sm.hpp"
#include "hw/sc/timing_params.hpp"
#include "hw/timing_kernel.hpp"
#include "models/mem/drain.hpp"
#include "models/mem/memory_system.hpp"

namespace simtlm::hw {

class Gpu : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Gpu);
  // channel_target, when set, stands in every DRAM channel's place (mem::MemorySystem::ChannelTarget: called
  // here, once per channel in order); the built-in channels are then not built and have no statistics.
  Gpu(sc_core::sc_module_name name, const GpuParams& params, const TimingKernel& kernel, const SmUnits& units,
      const mem::MemorySystem::ChannelTarget& channel_target = {});

  bool finished() const { return done_ctas_ == total_ctas_; }
  // Set when the run stopped early; kernel_fault tells a fault of the kernel (bad access, deadlock, budget)
  // from a failure of the machine model (a stuck memory request).
  const std::string& error() const { return error_; }
  bool kernel_fault() const { return kernel_fault_; }
  uint64_t cycles() const { return end_cycle_; }
  // Every statistic of the run except the launch description (docs/stats-schema.md, hw/sc/gpu_stats.hpp).
  stats::Group statistics() const;
  nlohmann::json stats_json() const { return statistics().json(); }
  std::vector<std::unique_ptr<Sm>>& sms() { return sms_; }
  // Explains why nothing finished: what every SM waits for and its oldest memory request.
  std::string describe_state() const;
  // A kernel's end for the memory system (hw/sc/gpu_drain.cpp): once every SM's memory requests have their
  // responses, requests_done runs; then every dirty line is written back, write-back L1s into the L2, then
  // the L2 banks into DRAM, lines staying valid and clean, and written_back runs when DRAM has acknowledged
  // the last write. Call it from within the simulation after the kernel's last CTA completed.
  void drain_memory(std::function<void()> requests_done, std::function<void()> written_back);
  uint64_t write_back_end_cycle() const { return write_back_end_cycle_; }
  // Launch sequences: called when a kernel has ended and its dirty lines are written back. It returns true
  // after replacing, in place, the TimingKernel the Gpu was built with by the next launch's; the Gpu then
  // runs that kernel on the same SMs, caches and DRAM. Nothing set, or false: the simulation ends.
  std::function<bool()> on_kernel_end;
  uint64_t kernel_start_cycle() const { return kernel_start_cycle_; }
  // Every SM's warp-synchronous hazard warnings (Sm::warp_sync_warnings), SM by SM.
  std::vector<std::string> warnings() const;
  // --trace-vcd: every SM's and every memory component's signals (Sm::trace_waves,
  // MemorySystem::trace_waves).
  void trace_waves(mem::Waves& waves);
  // Optional: told after every CTA completes (a progress line); it sees the run, never changes it.
  ProgressSink* progress_sink = nullptr;

 private:
  void start();
  void kernel_ended();
  void begin_next_kernel();
  void dispatch(uint32_t sm);
  // The kernel's units of work for the divergence unit chosen (hw/work/work_source.hpp), given to every SM.
  void make_work();
  void cta_done(uint32_t sm);
  void watchdog();
  void arm_watchdog(uint64_t now);
  // The livelock watch (gpu_livelock.cpp): every livelock_period() cycles, while every SM's issuing slots
  // issue and no value changes anywhere, compares the whole GPU's architectural state with those of the
  // earlier checks of that streak; one equal, the kernel can never finish and the run stops naming where
  // each warp spins. Run by the first SM that evaluates a cycle at or past livelock_due_ (no event of its
  // own: an extra timed event could reorder others due at the same time, and with them the statistics).
  // Returns true when it stopped the run.
  bool livelock_check(uint64_t now);
  void arm_livelock();
  uint64_t livelock_period() const;
  // Grows whenever anything happens: an instruction issues, or a request is accepted or answered anywhere
  // in the memory system (docs/timing-model.md, Errors).
  uint64_t progress() const;
  std::string runaway_report(uint64_t now) const;
  // Records the error, stops the simulation and issues an SC_ERROR sc_report of `type` (hw/sc/reports.hpp).
  void stop(const std::string& message, bool kernel_fault, const char* type);
  uint64_t now_cycle() const;

  const GpuParams p_;
  const TimingKernel& k_;
  mem::MemorySystem memory_;
  std::vector<std::unique_ptr<Sm>> sms_;
  mem::DrainSequence drain_;
  std::unique_ptr<WorkSource> work_;  // the kernel's
  // Mutable state.
  uint64_t total_ctas_ = 0, next_cta_ = 0, done_ctas_ = 0, end_cycle_ = 0, write_back_end_cycle_ = 0;
  uint64_t grid_thread_instructions_ = 0, kernel_start_cycle_ = 0;
  uint64_t watchdog_seen_progress_ = ~uint64_t{0};
  uint64_t livelock_due_ = ~uint64_t{0};      // cycle of the next livelock check (none: ~0)
  uint64_t livelock_changes_ = ~uint64_t{0};  // writes that changed a value, CTAs started and done
  using StateHash = std::pair<uint64_t, uint64_t>;
  static StateHash state_hash(const std::vector<uint64_t>& words);
  static constexpr size_t kLivelockKept = 64;
  // The states of the checks of the current streak, oldest first, with the cycle of each.
  std::vector<std::pair<StateHash, uint64_t>> livelock_seen_;
  std::vector<uint64_t> livelock_scratch_;
  std::string error_;
  bool kernel_fault_ = false;
  sc_core::sc_event start_, watchdog_, kernel_end_;
};

}  // namespace simtlm::hw
