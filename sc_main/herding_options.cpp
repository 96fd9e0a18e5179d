// The --herd-* options of `simtlm run` and `simtlm compare`, and the preparation of a herded run.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <stdexcept>

#include "sc_main/commands.hpp"

namespace simtlm::cli {

void add_herding_options(CLI::App& command, sim::HerdingCli& herding) {
  command.add_option(
      "--herd-branches", herding.branches,
      "Branch herding: all (every branch the safety analysis allows) or comma-separated PCs and "
      "CUDA FILE:LINE sites; replaces the launch file's herding.branches (docs/herding.md)");
  command.add_option("--herd-loads", herding.loads,
                     "Data herding by static load: all, or comma-separated PCs and FILE:LINE sites");
  command.add_option("--herd-buffers", herding.buffers,
                     "Data herding of every global load that reads these buffers (comma-separated names)");
  command.add_option("--herd-max", herding.max_instances,
                     "Herding instances after which herding switches off (the runtime quality monitor)");
  command
      .add_option("--herd-cycles", herding.branch_cycles,
                  "Cycles a herded branch's majority decision adds (default 0; the paper's bound is 1)")
      ->check(CLI::Range(0u, 64u));
  command
      .add_option("--herd-load-cycles", herding.load_cycles,
                  "Cycles a herded load's popular-block selection adds (default: the machine's selector "
                  "latency, lsu.herding_selector_rounds + 1)")
      ->check(CLI::Range(0u, 64u));
  command.add_option("--herd-block-bytes", herding.block_bytes,
                     "Data herding's memory block in bytes (a power of two; default 128)");
  command.add_option(
      "--herd-group-lanes", herding.group_lanes,
      "Data herding keeps one block per group of this many lanes: 32 (default), 16 (a half-warp, "
      "as compute 1.x coalescers) or 8");
  command.add_flag("--force-unsafe", herding.force_unsafe,
                   "Herd sites the static safety analysis calls unsafe (a wrong address is still a located "
                   "kernel error)");
  command.add_option(
      "--herd-safety", herding.safety,
      "The safety analysis's rule: strict (default) or relaxed, the paper's relaxation: a branch "
      "that can only skip the vulnerable operations depending on it (docs/herding.md)");
  command.add_flag("--no-herding", herding.off, "Ignore the launch file's herding: section");
}

sim::UnitSelection rtl_selection(const std::string& rtl, bool rtl_check) {
  if (rtl.empty() && !rtl_check) return {};
  try {
    return sim::parse_rtl_units(rtl.empty() ? "all" : rtl, rtl_check);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(std::string("--rtl: ") + e.what());
  }
}

PreparedRun prepare_run(const RunArgs& args, bool capture_printf, const config::MachineConfig* machine) {
  PreparedRun run{launch::load_launch(args.launch, args.launch_sets),
                  run_session_options(args, capture_printf), nullptr};
  run.herding = sim::prepare_herding(run.launch, args.herding, rtl_selection(args.rtl, args.rtl_check),
                                     run.options, machine);
  return run;
}

void PreparedRun::check_herding(const launch::Session& session) const {
  if (herding) herding->check(session.launch(), session.module(), {&session.kernel()});
}

void PreparedRun::add_herding_stats(nlohmann::json& doc) const {
  if (herding) doc["herding"] = herding->statistics().json();
}

}  // namespace simtlm::cli
