#include "hw/sc/timing_run.hpp"

#include <chrono>
#include <memory>

#include "hw/sc/gpu.hpp"

namespace simtlm::hw {

namespace {

void trace_waves(sc_core::sc_trace_file* file, Gpu& gpu) {
  for (auto& sm : gpu.sms()) {
    const std::string base = sm->basename();
    Sm::Wave& wave = sm->wave;
    sc_core::sc_trace(file, wave.issued_slot, base + ".issue_slot");
    sc_core::sc_trace(file, wave.issued_mask, base + ".issue_mask");
    for (size_t slot = 0; slot < wave.mask.size(); ++slot) {
      sc_core::sc_trace(file, wave.mask[slot], base + ".warp" + std::to_string(slot) + ".active_mask");
      sc_core::sc_trace(file, wave.depth[slot], base + ".warp" + std::to_string(slot) + ".stack_depth");
    }
  }
}

}  // namespace

TimingResult run_timing(const launch::Session& session, launch::DeviceImage& image,
                        const config::MachineConfig& config, const TimingOptions& options) {
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  const GpuParams params = gpu_params(config);
  image.context.nsm = params.sms;
  const TimingKernel kernel(image.context, params.sm.registers_per_thread, session.instruction_budget());
  uint64_t unit_cycle = 0;  // dates an RtlMismatch report
  UnitSet units = make_unit_set(options.units, params.sm.simd_width, UnitOptions{}, &unit_cycle);
  auto gpu = std::make_unique<Gpu>("gpu", params, kernel, *units.majority);
  for (auto& sm : gpu->sms()) sm->unit_cycle = &unit_cycle;
  if (options.warp_trace) {
    std::ostream* out = options.warp_trace;
    for (auto& sm : gpu->sms()) sm->trace = [out](const std::string& line) { *out << line << '\n'; };
  }
  sc_core::sc_trace_file* vcd = nullptr;
  if (!options.vcd.empty()) {
    std::string stem = options.vcd.string();
    if (stem.size() > 4 && stem.ends_with(".vcd")) stem.resize(stem.size() - 4);  // SystemC appends .vcd
    vcd = sc_core::sc_create_vcd_trace_file(stem.c_str());
    vcd->set_time_unit(1, sc_core::SC_PS);  // DRAM clocks need not be whole core cycles
    trace_waves(vcd, *gpu);
  }
  const auto start = std::chrono::steady_clock::now();
  sc_core::sc_start();
  TimingResult result;
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (vcd) sc_core::sc_close_vcd_trace_file(vcd);
  if (!gpu->error().empty()) {
    if (gpu->kernel_fault()) throw ptx::KernelError(gpu->error());
    throw TimingError(gpu->error());
  }
  if (!gpu->finished()) {
    throw TimingError("the simulation ran out of events before kernel " + kernel.fn.name +
                      " finished:" + gpu->describe_state());
  }
  result.stats = gpu->stats_json();
  result.cycles = gpu->cycles();
  result.thread_instructions = result.stats["thread_instructions"].get<uint64_t>();
  result.buffers = image.read_buffers(session.launch());
  return result;
}

}  // namespace simtlm::hw
