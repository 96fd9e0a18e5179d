// What every form of `simtlm run` (one launch or a sequence, functional or timing) does the same way around
// the model: the machine it runs on, the output directory, stats.json, the check line and the failures.
#pragma once

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "models/config/machine_config.hpp"
#include "models/launch/output_dir.hpp"
#include "models/launch/session.hpp"
#include "sc_main/commands.hpp"
#include "sim/timing_run.hpp"

namespace simtlm::cli {

// --config (or the built-in defaults) with every --set PATH=VALUE applied; its warnings printed on stderr
// unless print_warnings is false.
config::MachineConfig run_machine_config(const RunArgs& args, bool print_warnings = true);

// out/<launch file stem> unless --out names the directory.
std::filesystem::path output_dir(const RunArgs& args);

// DIR/stats.json (DIR: the staging directory of the run's output set).
// --trace-vcd and --trace-warps of a timing run, set in `options`: a trace inside --out goes to the
// staging directory and so joins the output set. finish() after the run: throws OutputWriteError when the
// warp trace could not be written.
class TimingTraces {
 public:
  TimingTraces(const RunArgs& args, launch::OutputSet& outputs, sim::TimingOptions& options);
  void finish();

 private:
  const RunArgs& args_;
  std::ofstream warps_;
};

void write_stats_file(const std::filesystem::path& dir, const nlohmann::json& doc);

// "MISMATCH" when a check failed, "yes" when expect or a host reference checked the outputs, else "n/a".
std::string check_status(const launch::SessionResult& result);

// Every failed check, on stderr, naming the launch file.
void print_failures(const RunArgs& args, const launch::SessionResult& result);

// A kernel error names kernel, CTA, warp and PC but not the launch file: it goes in front.
template <class AnySession>
launch::SessionResult run_naming_launch(const RunArgs& args, AnySession& session) {
  try {
    return session.run();
  } catch (const ptx::KernelError& e) {
    throw std::runtime_error(fmt::format("{}: {}", args.launch.string(), e.what()));
  }
}

}  // namespace simtlm::cli
