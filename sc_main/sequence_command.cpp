// `simtlm run` for launch sequences (launches:): the functional model runs kernel after kernel on one device
// image; the timing model runs them in one SystemC simulation (sim/timing_sequence.*).
#include <fmt/format.h>

#include <stdexcept>

#include "models/config/machine_config.hpp"
#include "models/launch/launch.hpp"
#include "models/launch/output_dir.hpp"
#include "models/launch/outputs.hpp"
#include "models/launch/sequence.hpp"
#include "models/launch/stats_json.hpp"
#include "sc_main/commands.hpp"
#include "sc_main/run_output.hpp"
#include "sim/timing_sequence.hpp"

namespace simtlm::cli {

namespace fs = std::filesystem;

namespace {

void report(const RunArgs& args, const launch::SessionResult& result, const fs::path& dir,
            const nlohmann::json& doc) {
  if (!args.quiet) {
    fmt::print("{}: {} launches of {}\n", args.launch.string(), result.launches.size(),
               doc["kernel"].get<std::string>());
    if (doc.contains("cycles")) fmt::print("  cycles              {}\n", doc["cycles"].get<uint64_t>());
    fmt::print("  warp instructions   {}\n  thread instructions {}\n  SIMD utilization    {:.4f}\n",
               doc["warp_instructions"].get<uint64_t>(), doc["thread_instructions"].get<uint64_t>(),
               doc["simd_utilization"].get<double>());
    fmt::print("  check               {}\n  outputs in          {}\n", check_status(result), dir.string());
  }
  print_failures(args, result);
}

// The sites must fit a kernel of the sequence's module.
void check_sequence_herding(const PreparedRun& prepared, const launch::SequenceSession& session) {
  if (prepared.herding)
    prepared.herding->check(session.launch(), session.module(), sim::entry_kernels(session.module()));
}

}  // namespace

int run_sequence_command(const RunArgs& args) {
  PreparedRun prepared = prepare_run(args, false);
  launch::SequenceSession session(std::move(prepared.launch), prepared.options);
  check_sequence_herding(prepared, session);
  const fs::path dir = output_dir(args);
  launch::OutputSet outputs(dir);
  const launch::SessionResult result = run_naming_launch(args, session);
  nlohmann::json doc = launch::sequence_stats_json(session, result, result.stats);
  launch::add_diagnostics(doc, result, true, args.launch.string());
  prepared.add_herding_stats(doc);
  outputs.write_and_commit([&](const fs::path& staging) {
    launch::write_outputs(session.launch(), result.buffers, staging, {});
    write_stats_file(staging, doc);
  });
  report(args, result, dir, doc);
  return result.ok() ? 0 : 1;
}

int run_sequence_timing_command(const RunArgs& args) {
  if (!args.rtl.empty() || args.rtl_check)
    throw std::runtime_error("--rtl and --rtl-check take a single-launch file");
  const config::MachineConfig machine = run_machine_config(args);
  PreparedRun prepared = prepare_run(args, false, &machine);
  launch::SequenceSession session(std::move(prepared.launch), prepared.options);
  check_sequence_herding(prepared, session);
  const fs::path dir = output_dir(args);
  launch::OutputSet outputs(dir);
  sim::TimingOptions options;
  TimingTraces traces(args, outputs, options);
  launch::SessionResult result;
  nlohmann::json doc;
  try {
    doc = sim::run_timing_sequence(session, machine, result, options);
  } catch (const ptx::KernelError& e) {
    throw std::runtime_error(fmt::format("{}: {}", args.launch.string(), e.what()));
  } catch (const sim::TimingError& e) {
    throw std::runtime_error(fmt::format("{}: {}", args.launch.string(), e.what()));
  } catch (const std::invalid_argument& e) {
    // A unit refusing a parameter: --rtl is refused above, so the configuration is to blame.
    throw std::runtime_error(config::attribute_unit_refusal(e.what(), false, machine.origin()));
  }
  traces.finish();
  doc["config"] =
      machine.source() == "defaults" ? machine.source() : fs::path(machine.source()).filename().string();
  doc["overrides"] = args.overrides;
  launch::add_diagnostics(doc, result, true, args.launch.string());
  prepared.add_herding_stats(doc);
  outputs.write_and_commit([&](const fs::path& staging) {
    launch::write_outputs(session.launch(), result.buffers, staging, {});
    write_stats_file(staging, doc);
  });
  report(args, result, dir, doc);
  return result.ok() ? 0 : 1;
}

}  // namespace simtlm::cli
