// Runs one launch on the SystemC timing model: elaborates a Gpu for the machine configuration, simulates
// until the grid completes and returns the final buffers and the statistics document. SystemC allows one
// elaboration per process, so this runs once per process.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "hw/sc/gpu_stats.hpp"
#include "hw/units/select/unit_set.hpp"
#include "models/config/machine_config.hpp"
#include "models/launch/sequence.hpp"
#include "models/launch/session.hpp"
#include "models/mem/memory_system.hpp"
#include "sim/stats_doc.hpp"

namespace simtlm::sim {

// What the command line and the studies name of the timing model, through this layer.
using hw::describe;
using hw::parse_rtl_units;
using hw::timing_stats_decl;
using hw::timing_stats_from_json;
using hw::UnitSelection;

// The machine model, not the kernel, failed: a memory request never completed, or no progress was made.
class TimingError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct TimingOptions {
  std::filesystem::path vcd;           // --trace-vcd: the waveform of sim/waveform.hpp
  std::ostream* warp_trace = nullptr;  // --trace-warps: one line per issued warp instruction
  UnitSelection units;                 // --rtl / --rtl-check: Verilated twins of the units the SM uses
  // A SystemC user's own memory behind the L2 (docs/systemc.md): when set, called during elaboration once per
  // DRAM channel (0, 1, ... dram.channels - 1), before the simulation starts; the target socket it returns
  // stands in that channel's place. Each socket must accept dram.ports bindings (the L2 banks of the channel,
  // or the crossbar's bank ports without the L2) and its module must outlive the run; it may be built inside
  // the callback (a child of gpu.memory, named by the caller) or before run_timing. The built-in channels
  // are then not built: the statistics' `dram` rows are absent and its totals zero. Empty: the configured
  // DRAM.
  mem::MemorySystem::ChannelTarget channel_target;
};

struct TimingResult {
  // Timing statistics (Gpu::statistics), without the launch description; JSON only when written out.
  stats::Group stats{timing_stats_decl()};
  std::map<std::string, std::vector<uint8_t>> buffers;
  uint64_t cycles = 0;
  uint64_t thread_instructions = 0;
  double wall_seconds = 0;
  std::vector<std::string> warnings;  // warp-synchronous hazards (Gpu::warnings)
};

// Runs session's launch on `image` (from session.prepare_device()). Throws ptx::KernelError when the kernel
// faults, deadlocks or exceeds its budget; TimingError when the model is stuck or an RTL twin disagrees with
// its C++ model under --rtl-check (the message is the RtlMismatch report); config::ConfigError for an
// inconsistent configuration; std::invalid_argument when a requested twin does not exist for the SIMD width.
TimingResult run_timing(const launch::Session& session, launch::DeviceImage& image,
                        const config::MachineConfig& config, const TimingOptions& options);

// What run_timing would refuse before the kernel's first instruction on this machine, each as run reports it
// (hw/sc/machine_refusals.hpp): the divergence unit's refusal and a CTA that fits no SM. For
// `simtlm check --mode timing`; `image` is session.prepare_device()'s.
struct MachineRefusal {
  std::string kernel;
  std::string reason;  // as run reports it after the launch file's name
};
std::vector<MachineRefusal> machine_refusals(const launch::Session& session, launch::DeviceImage& image,
                                             const config::MachineConfig& config);
// The divergence unit's refusal of every kernel a launch sequence launches, in first-launch order (a
// sequence's geometry is known only as it runs, so its CTAs are not checked against the SM here).
std::vector<MachineRefusal> machine_refusals(const launch::SequenceSession& session,
                                             const config::MachineConfig& config);

}  // namespace simtlm::sim
