#include "sc_main/run_output.hpp"

#include <cstdio>
#include <vector>

#include "models/launch/output_dir.hpp"

namespace simtlm::cli {

namespace fs = std::filesystem;

config::MachineConfig run_machine_config(const RunArgs& args, bool print_warnings) {
  config::MachineConfig machine =
      args.config.empty() ? config::MachineConfig() : config::MachineConfig::load(args.config);
  for (const std::string& o : args.overrides) {
    const size_t eq = o.find('=');
    if (eq == std::string::npos || eq == 0) throw std::runtime_error("--set " + o + ": expected PATH=VALUE");
    machine.set(o.substr(0, eq), o.substr(eq + 1), "--set");
  }
  if (print_warnings) {
    for (const std::string& warning : machine.warnings())
      fmt::print(stderr, "simtlm: warning: {}\n", warning);
  }
  return machine;
}

fs::path output_dir(const RunArgs& args) {
  return args.out.empty() ? fs::path("out") / args.launch.stem() : args.out;
}

void write_stats_file(const fs::path& dir, const nlohmann::json& doc) {
  const std::string text = doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  launch::write_file_checked(dir / "stats.json", std::vector<uint8_t>(text.begin(), text.end()));
}

std::string check_status(const launch::SessionResult& result) {
  if (!result.ok()) return "MISMATCH";
  if (!result.expect_checked && !result.reference_checked) return "n/a";
  return "yes";
}

void print_failures(const RunArgs& args, const launch::SessionResult& result) {
  for (const std::string& failure : result.failures) {
    fmt::print(stderr, "simtlm: error: {}: {}\n", args.launch.string(), failure);
  }
}

TimingTraces::TimingTraces(const RunArgs& args, launch::OutputSet& outputs, sim::TimingOptions& options)
    : args_(args) {
  const std::filesystem::path warps = outputs.redirect(args.trace_warps);
  options.vcd = outputs.redirect(args.trace_vcd);
  for (const std::filesystem::path& file : {options.vcd, warps}) {
    std::error_code ec;
    if (!file.empty() && file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), ec);
  }
  if (!args.trace_warps.empty()) {
    warps_.open(warps);
    if (!warps_) throw std::runtime_error(args.trace_warps.string() + ": cannot write the warp trace");
    options.warp_trace = &warps_;
  }
}

void TimingTraces::finish() {
  if (!warps_.is_open()) return;
  warps_.close();
  if (!warps_) throw launch::OutputWriteError(args_.trace_warps.string() + ": cannot write the warp trace");
}

}  // namespace simtlm::cli
