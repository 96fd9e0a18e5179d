// `simtlm run` for launch sequences (launches:): the functional model runs kernel after kernel on one device
// image; the timing model runs them in one SystemC simulation (hw/sc/timing_sequence.*).
#include <fmt/format.h>

#include <stdexcept>

#include "hw/sc/timing_sequence.hpp"
#include "models/config/machine_config.hpp"
#include "models/launch/launch.hpp"
#include "models/launch/outputs.hpp"
#include "models/launch/sequence.hpp"
#include "models/launch/stats_json.hpp"
#include "sc_main/commands.hpp"

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
    const std::string check = !result.ok()                                          ? "MISMATCH"
                              : (result.expect_checked || result.reference_checked) ? "yes"
                                                                                    : "n/a";
    fmt::print("  check               {}\n  outputs in          {}\n", check, dir.string());
  }
  for (const std::string& failure : result.failures) {
    fmt::print(stderr, "simtlm: error: {}: {}\n", args.launch.string(), failure);
  }
}

void write_doc(const fs::path& dir, const nlohmann::json& doc) {
  const std::string text = doc.dump(2) + "\n";
  launch::write_file_atomic(dir / "stats.json", std::vector<uint8_t>(text.begin(), text.end()));
}

}  // namespace

int run_sequence_command(const RunArgs& args) {
  launch::SequenceSession session(launch::load_launch(args.launch), run_session_options(args, false));
  launch::SessionResult result;
  try {
    result = session.run();
  } catch (const ptx::KernelError& e) {
    throw std::runtime_error(fmt::format("{}: {}", args.launch.string(), e.what()));
  }
  const fs::path dir = args.out.empty() ? fs::path("out") / args.launch.stem() : args.out;
  launch::write_outputs(session.launch(), result.buffers, dir, {});
  nlohmann::json doc = launch::sequence_stats_json(session, result, result.stats);
  launch::add_diagnostics(doc, result, true, args.launch.string());
  write_doc(dir, doc);
  report(args, result, dir, doc);
  return result.ok() ? 0 : 1;
}

int run_sequence_timing_command(const RunArgs& args) {
  if (!args.trace_vcd.empty() || !args.trace_warps.empty() || !args.rtl.empty() || args.rtl_check) {
    throw std::runtime_error("--trace-vcd, --trace-warps, --rtl and --rtl-check take a single-launch file");
  }
  config::MachineConfig machine =
      args.config.empty() ? config::MachineConfig() : config::MachineConfig::load(args.config);
  for (const std::string& o : args.overrides) {
    const size_t eq = o.find('=');
    if (eq == std::string::npos || eq == 0) throw std::runtime_error("--set " + o + ": expected PATH=VALUE");
    machine.set(o.substr(0, eq), o.substr(eq + 1), "--set");
  }
  launch::SequenceSession session(launch::load_launch(args.launch), run_session_options(args, false));
  launch::SessionResult result;
  nlohmann::json doc;
  try {
    doc = hw::run_timing_sequence(session, machine, result);
  } catch (const ptx::KernelError& e) {
    throw std::runtime_error(fmt::format("{}: {}", args.launch.string(), e.what()));
  } catch (const hw::TimingError& e) {
    throw std::runtime_error(fmt::format("{}: {}", args.launch.string(), e.what()));
  }
  const fs::path dir = args.out.empty() ? fs::path("out") / args.launch.stem() : args.out;
  launch::write_outputs(session.launch(), result.buffers, dir, {});
  doc["config"] =
      machine.source() == "defaults" ? machine.source() : fs::path(machine.source()).filename().string();
  doc["overrides"] = args.overrides;
  launch::add_diagnostics(doc, result, true, args.launch.string());
  write_doc(dir, doc);
  report(args, result, dir, doc);
  return result.ok() ? 0 : 1;
}

}  // namespace simtlm::cli
