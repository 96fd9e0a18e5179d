// `simtlm run` in timing mode: the launch on the SystemC model of the machine in --config.
#include <fmt/format.h>

#include <fstream>
#include <memory>
#include <stdexcept>

#include "models/config/machine_config.hpp"
#include "models/launch/launch.hpp"
#include "models/launch/output_dir.hpp"
#include "models/launch/outputs.hpp"
#include "models/launch/session.hpp"
#include "models/launch/stats_json.hpp"
#include "sc_main/commands.hpp"
#include "sc_main/run_output.hpp"
#include "sim/timing_run.hpp"

namespace simtlm::cli {

namespace fs = std::filesystem;

int run_timing_command(const RunArgs& args) {
  const config::MachineConfig machine = run_machine_config(args);
  PreparedRun prepared = prepare_run(args, false, &machine);
  const launch::Session session(std::move(prepared.launch), prepared.options);
  prepared.check_herding(session);
  const std::unique_ptr<launch::DeviceImage> image = session.prepare_device();
  const fs::path dir = output_dir(args);
  launch::OutputSet outputs(dir);
  sim::TimingOptions options;
  TimingTraces traces(args, outputs, options);
  options.units = rtl_selection(args.rtl, args.rtl_check);
  sim::TimingResult timing;
  try {
    timing = sim::run_timing(session, *image, machine, options);
  } catch (const ptx::KernelError& e) {
    throw std::runtime_error(fmt::format("{}: {}", args.launch.string(), e.what()));
  } catch (const sim::TimingError& e) {
    throw std::runtime_error(fmt::format("{}: {}", args.launch.string(), e.what()));
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(
        config::attribute_unit_refusal(e.what(), options.units.any_rtl(), machine.origin()));
  }
  traces.finish();
  launch::SessionResult result;
  result.buffers = timing.buffers;
  result.warnings = session.warnings();
  result.warnings.insert(result.warnings.end(), timing.warnings.begin(), timing.warnings.end());
  result.out_of_bounds_warn = image->memory.tolerates_out_of_bounds();
  result.out_of_bounds = image->memory.out_of_bounds_log();
  session.verify(result, *image);

  nlohmann::json doc = launch::launch_json(session.launch(), session.kernel());
  doc["config"] =
      machine.source() == "defaults" ? machine.source() : fs::path(machine.source()).filename().string();
  doc["overrides"] = args.overrides;
  doc["units"] = sim::describe(options.units);
  doc.update(timing.stats.json());
  launch::add_diagnostics(doc, result, false, args.launch.string());
  prepared.add_herding_stats(doc);
  const double wall = timing.wall_seconds > 0 ? timing.wall_seconds : 1e-9;
  doc["host"] = {{"wall_seconds", timing.wall_seconds},
                 {"thread_instructions_per_second", double(timing.thread_instructions) / wall},
                 {"cycles_per_second", double(timing.cycles) / wall}};
  outputs.write_and_commit([&](const fs::path& staging) {
    launch::write_outputs(session.launch(), result.buffers, staging, {});
    write_stats_file(staging, doc);
  });
  if (!args.quiet) {
    const nlohmann::json& s = doc;
    fmt::print("{}: kernel {} on {} (timing)\n", args.launch.string(), session.kernel().name,
               doc["config"].get<std::string>());
    fmt::print("  cycles              {}\n  IPC                 {:.4f}\n  warp instructions   {}\n",
               s["cycles"].get<uint64_t>(), s["ipc"].get<double>(), s["warp_instructions"].get<uint64_t>());
    fmt::print(
        "  SIMD utilization    {:.4f}\n  divergent branches  {} of {}\n  stack pushes        {} (max depth "
        "{}, spills {}, fills {})\n",
        s["simd_utilization"].get<double>(), s["divergent_branches"].get<uint64_t>(),
        s["branches"].get<uint64_t>(), s["stack"]["pushes"].get<uint64_t>(),
        s["stack"]["max_depth"].get<uint64_t>(), s["stack"]["spills"].get<uint64_t>(),
        s["stack"]["fills"].get<uint64_t>());
    fmt::print("  check               {}\n  outputs in          {}\n", check_status(result), dir.string());
  }
  print_failures(args, result);
  return result.ok() ? 0 : 1;
}

}  // namespace simtlm::cli
