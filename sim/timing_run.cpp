#include "sim/timing_run.hpp"

#include <chrono>
#include <memory>
#include <optional>

#include "hw/divergence/divergence_unit.hpp"
#include "hw/sc/gpu.hpp"
#include "hw/sc/machine_refusals.hpp"
#include "hw/sc/reports.hpp"
#include "models/ptx/kernel_layout.hpp"
#include "sim/waveform.hpp"

namespace simtlm::sim {

using namespace hw;  // the timing model this layer drives

TimingResult run_timing(const launch::Session& session, launch::DeviceImage& image,
                        const config::MachineConfig& config, const TimingOptions& options) {
  const hw::report::ReportActions report_actions;  // for this run only (hw/sc/reports.hpp)
  const GpuParams params = gpu_params(config);
  image.context.nsm = params.sms;
  const TimingKernel kernel(image.context, params.sm.registers_per_thread, session.instruction_budget());
  uint64_t unit_cycle = 0;  // dates an RtlMismatch report
  UnitOptions unit_options;
  const bool rtl_compactor = options.units.rtl_compactor && params.sm.divergence.traits().permutes_lanes;
  if (rtl_compactor && kernel.warps_per_cta > unit_options.compactor_max_warps) {
    throw std::invalid_argument(
        "the RTL compactor holds " + std::to_string(unit_options.compactor_max_warps) +
        " warps; a CTA of kernel " + kernel.fn.name + " has " + std::to_string(kernel.warps_per_cta));
  }
  UnitSet units = make_unit_set(options.units, params.sm.simd_width, unit_options, &unit_cycle);
  SmUnits sm_units;
  sm_units.majority = units.majority.get();
  if (options.units.rtl_permutation && params.sm.divergence.traits().permutes_lanes) {
    const LanePermutationMap map(params.sm.divergence.permutation, ptx::kWarpSize,
                                 params.sm.divergence.permutation_seed);
    if (!map.is_xor()) {
      throw std::invalid_argument(std::string(permutation_name(params.sm.divergence.permutation)) +
                                  " is not an XOR permutation; the permutation unit cannot hold it");
    }
    for (uint32_t w = 0; w < unit_options.permutation_warp_ids; ++w)
      units.permutation->load(w, map.xor_mask(w));
    units.permutation->set_mode(PermutationMode::kTable);
    sm_units.permutation = units.permutation.get();
  }
  if (rtl_compactor) sm_units.compactor = units.compactor.get();
  auto gpu = std::make_unique<Gpu>("gpu", params, kernel, sm_units, options.channel_target);
  for (auto& sm : gpu->sms()) sm->unit_cycle = &unit_cycle;
  if (std::ostream* out = options.warp_trace) {
    for (auto& sm : gpu->sms()) sm->trace = [out](const std::string& line) { *out << line << '\n'; };
  }
  std::optional<Waveform> vcd;
  if (!options.vcd.empty()) vcd.emplace(options.vcd, *gpu, params.sm.clock);
  gpu->progress_sink = session.progress();
  if (gpu->progress_sink) gpu->progress_sink->launch_started(0, image.context.grid.count());
  const auto start = std::chrono::steady_clock::now();
  sc_core::sc_start();
  TimingResult result;
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  vcd.reset();
  if (!gpu->error().empty()) {
    if (gpu->kernel_fault()) throw ptx::KernelError(gpu->error());
    throw TimingError(gpu->error());
  }
  if (!gpu->finished()) {
    const std::string what = "the simulation ran out of events before kernel " + kernel.fn.name +
                             " finished:" + gpu->describe_state();
    sc_core::sc_report_handler::report(sc_core::SC_ERROR, report::kOutOfEvents, what.c_str(), __FILE__,
                                       __LINE__);
    throw TimingError(what);
  }
  if (gpu->progress_sink) gpu->progress_sink->run_finished();
  result.stats = gpu->statistics();
  result.cycles = gpu->cycles();
  result.thread_instructions = result.stats.integer("thread_instructions");
  result.buffers = image.read_buffers(session.launch());
  result.warnings = gpu->warnings();
  return result;
}

std::vector<MachineRefusal> machine_refusals(const launch::Session& session, launch::DeviceImage& image,
                                             const config::MachineConfig& config) {
  const GpuParams params = gpu_params(config);
  image.context.nsm = params.sms;
  const TimingKernel kernel(image.context, params.sm.registers_per_thread, session.instruction_budget());
  std::vector<MachineRefusal> refused;
  for (std::string& why : hw::machine_refusals(params, kernel))
    refused.push_back({kernel.fn.name, std::move(why)});
  return refused;
}

std::vector<MachineRefusal> machine_refusals(const launch::SequenceSession& session,
                                             const config::MachineConfig& config) {
  const GpuParams params = gpu_params(config);
  std::vector<MachineRefusal> refused;
  for (const auto& [module, kernel] : session.launched_kernels()) {
    if (ptx::kernel_refusal(*module, *kernel))
      continue;  // refused by the model first (SequenceSession::refusals)
    if (std::string why = divergence_unit_refusal(params.sm.divergence, *module, *kernel); !why.empty())
      refused.push_back({kernel->name, std::move(why)});
  }
  return refused;
}

}  // namespace simtlm::sim
