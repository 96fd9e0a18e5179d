#include "sim/timing_sequence.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <iterator>
#include <optional>

#include "hw/sc/gpu.hpp"
#include "hw/sc/gpu_stats.hpp"
#include "hw/sc/reports.hpp"
#include "models/launch/sequence_totals.hpp"
#include "sim/waveform.hpp"

namespace simtlm::sim {

using namespace hw;  // the timing model this layer drives

namespace {

double ratio(uint64_t a, uint64_t b) {
  return b ? double(a) / double(b) : 0.0;
}

// The load/store unit's queue statistics run on from kernel to kernel like the caches'.
constexpr const char* kMemoryDocs[] = {"lsu", "l1", "interconnect", "l2", "dram"};

}  // namespace

nlohmann::json run_timing_sequence(launch::SequenceSession& session, const config::MachineConfig& config,
                                   launch::SessionResult& result, const TimingOptions& options) {
  if (options.units.any_rtl())
    throw std::invalid_argument("the RTL units (--rtl) take a single-launch file, not a launch sequence");
  const hw::report::ReportActions report_actions;  // for this run only (hw/sc/reports.hpp)
  const GpuParams params = gpu_params(config);
  session.reset();
  std::unique_ptr<launch::PlannedLaunch> current = session.next();
  if (!current)
    throw launch::LaunchError(session.launch().path.string() + ": the sequence launches no kernel");
  uint64_t used = 0;  // the kernels' thread instructions
  current->context->nsm = params.sms;
  // The SMs and the Gpu hold a reference to this TimingKernel; each launch replaces it in place.
  std::optional<TimingKernel> kernel;
  kernel.emplace(*current->context, params.sm.registers_per_thread, session.budget_left());
  uint64_t unit_cycle = 0;
  UnitSet units = make_unit_set(UnitSelection{}, params.sm.simd_width, UnitOptions{}, &unit_cycle);
  SmUnits sm_units;
  sm_units.majority = units.majority.get();
  auto gpu = std::make_unique<Gpu>("gpu", params, *kernel, sm_units, options.channel_target);
  for (auto& sm : gpu->sms()) sm->unit_cycle = &unit_cycle;
  std::optional<Waveform> waveform;
  if (!options.vcd.empty()) waveform.emplace(options.vcd, *gpu, params.sm.clock);
  if (std::ostream* out = options.warp_trace) {
    for (auto& sm : gpu->sms()) sm->trace = [out](const std::string& line) { *out << line << '\n'; };
  }

  std::optional<stats::Group> before;  // the previous launch's statistics: the memory system's run on
  stats::Group launches_merged(timing_stats_decl());  // each launch's, merged as declared
  std::exception_ptr error;
  bool finished = false;
  auto record = [&] {
    stats::Group now = gpu->statistics();
    nlohmann::json s = now.json();
    const uint64_t start = gpu->kernel_start_cycle(), end = gpu->cycles();
    nlohmann::json entry = current->describe();
    entry["start_cycle"] = start;
    s["cycles"] = end - start;
    s["ipc"] = ratio(s["warp_instructions"].get<uint64_t>(), end - start);
    s["thread_ipc"] = ratio(s["thread_instructions"].get<uint64_t>(), end - start);
    nlohmann::json increments =
        stats::increments_json(now, before ? &*before : nullptr, {"lsu", "l1", "interconnect", "l2", "dram"});
    for (const char* key : kMemoryDocs) s[key] = std::move(increments[key]);
    launches_merged.merge(now);
    before = std::move(now);
    s["write_back"]["l1_requests"] = s["l1"].value("flush_writebacks", uint64_t{0});
    s["write_back"]["requests"] = s["l2"].value("flush_writebacks", uint64_t{0});
    s["write_back"]["bytes"] = s["l2"].value("flush_bytes", uint64_t{0});
    used += s["thread_instructions"].get<uint64_t>();
    session.charge_kernel(s["thread_instructions"].get<uint64_t>());
    for (auto& [key, value] : s.items()) entry[key] = std::move(value);
    result.launches.push_back(std::move(entry));
  };
  gpu->on_kernel_end = [&]() -> bool {
    try {
      record();
      std::unique_ptr<launch::PlannedLaunch> next = session.next();
      if (!next) {
        finished = true;
        return false;
      }
      next->context->nsm = params.sms;
      kernel.reset();  // before the context it refers to goes
      current = std::move(next);
      kernel.emplace(*current->context, params.sm.registers_per_thread, session.budget_left());
      if (gpu->progress_sink)
        gpu->progress_sink->launch_started(current->index, current->context->grid.count());
      return true;
    } catch (...) {
      error = std::current_exception();
      sc_core::sc_stop();
      return false;
    }
  };
  gpu->progress_sink = session.progress();
  if (gpu->progress_sink) gpu->progress_sink->launch_started(current->index, current->context->grid.count());
  const auto wall_start = std::chrono::steady_clock::now();
  sc_core::sc_start();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  waveform.reset();
  if (error) std::rethrow_exception(error);
  if (!gpu->error().empty()) {
    const std::string where =
        !finished ? fmt::format("launch {} (kernel {} at line {}, i = {}): ", current->index,
                                current->kernel->name, current->step->line, current->iteration)
                  : "";
    if (gpu->kernel_fault()) throw ptx::KernelError(where + gpu->error());
    throw TimingError(where + gpu->error());
  }
  if (!finished) {
    const std::string what = "the simulation ran out of events before kernel " + current->kernel->name +
                             " finished:" + gpu->describe_state();
    sc_core::sc_report_handler::report(sc_core::SC_ERROR, report::kOutOfEvents, what.c_str(), __FILE__,
                                       __LINE__);
    throw TimingError(what);
  }

  if (gpu->progress_sink) gpu->progress_sink->run_finished();
  // Totals: each launch's statistics merged as declared (so every ratio is recomputed from the merged
  // counters), with the memory system's and the kernel-end write-back's as they stand at the end.
  stats::Group totals = launches_merged;
  const stats::Group whole = gpu->statistics();
  for (const char* rows : {"lsu", "l1", "l2", "dram"}) totals.list(rows) = whole.list(rows);
  for (const char* group : {"interconnect", "write_back"}) totals.group(group) = whole.group(group);
  const uint64_t cycles = gpu->cycles();
  totals.set("cycles", cycles);
  nlohmann::json doc = totals.json();
  const launch::SequenceBranchTotals branches = launch::sum_launch_branches(result.launches);
  doc["per_branch"] = branches.per_branch;
  nlohmann::json head = {{"kernel", branches.kernel_list},
                         {"launch", session.launch().path.filename().string()},
                         {"grid", nullptr},
                         {"block", nullptr},
                         {"shared_bytes", nullptr},
                         {"launch_count", result.launches.size()}};
  head.update(doc);
  head["launches"] = result.launches;
  head["host"] = {{"wall_seconds", wall},
                  {"thread_instructions_per_second", double(used) / (wall > 0 ? wall : 1e-9)},
                  {"cycles_per_second", double(cycles) / (wall > 0 ? wall : 1e-9)}};
  session.finish(result);
  for (std::string& w : gpu->warnings()) result.warnings.push_back(std::move(w));
  return head;
}

}  // namespace simtlm::sim
