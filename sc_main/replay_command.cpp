// `simtlm mem-replay` (sim/mem_replay.hpp; docs/systemc.md): parses the options, runs the replay, prints the
// summary or the JSON document, and writes it with --out.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <fstream>
#include <memory>

#include "sc_main/commands.hpp"
#include "sc_main/run_output.hpp"
#include "sim/mem_replay.hpp"

namespace simtlm::cli {
namespace {

struct ReplayArgs {
  std::filesystem::path trace;
  RunArgs machine;  // only config and overrides
  std::string level = "dram";
  uint32_t request_bytes = 32;
  std::filesystem::path out;
  bool json = false;
};

int replay_command(const ReplayArgs& args) {
  sim::ReplayOptions options;
  options.level = sim::parse_replay_level(args.level);
  options.request_bytes = args.request_bytes;
  const config::MachineConfig machine = run_machine_config(args.machine);
  const mem::MemTrace trace = mem::read_mem_trace(args.trace);
  const nlohmann::json doc = sim::run_mem_replay(machine, trace, options);
  if (!args.out.empty()) {
    std::ofstream out(args.out);
    out << doc.dump(2) << "\n";
    if (!out) throw std::runtime_error(args.out.string() + ": cannot write");
  }
  fmt::print("{}", args.json ? doc.dump(2) + "\n" : sim::describe_replay(doc));
  return 0;
}

}  // namespace

void add_replay_command(CLI::App& app, std::function<int()>& action) {
  auto args = std::make_shared<ReplayArgs>();
  CLI::App* cmd = app.add_subcommand(
      "mem-replay",
      "Drive the memory system from a request trace (DRAMsim3: ADDRESS READ|WRITE CYCLE; Ramulator: ADDRESS "
      "R|W) and report latencies, bandwidth, row-buffer hits and queue occupancy (docs/systemc.md)");
  cmd->add_option("--trace", args->trace, "Request trace")->required();
  cmd->add_option("--config", args->machine.config, "Machine configuration (configs/*.yaml)");
  cmd->add_option("--set", args->machine.overrides, "Override a configuration parameter (repeatable)");
  cmd->add_option("--level", args->level, "Where the requests enter: l1, l2 or dram (default dram)");
  cmd->add_option("--request-bytes", args->request_bytes, "Bytes per request, a power of two (default 32)");
  cmd->add_option("--out", args->out, "Write the JSON document here");
  cmd->add_flag("--json", args->json, "Print the JSON document instead of the summary");
  cmd->callback([args, &action] { action = [args] { return replay_command(*args); }; });
}

}  // namespace simtlm::cli
