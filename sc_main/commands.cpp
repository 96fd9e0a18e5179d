#include "sc_main/commands.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "models/config/machine_config.hpp"
#include "models/launch/launch.hpp"
#include "models/launch/output_dir.hpp"
#include "models/launch/outputs.hpp"
#include "models/launch/sequence.hpp"
#include "models/launch/session.hpp"
#include "models/launch/sha256.hpp"
#include "models/launch/stats_json.hpp"
#include "sc_main/run_output.hpp"
#include "sim/cooperative_limit.hpp"
#include "sim/host_references.hpp"
#include "sim/progress.hpp"
#include "sim/timing_run.hpp"

namespace simtlm::cli {

namespace fs = std::filesystem;
using launch::Session;
using launch::SessionResult;

launch::SessionOptions session_options(uint64_t budget, bool capture_printf) {
  launch::SessionOptions options;
  options.instruction_budget = budget;
  options.find_reference = &sim::find_host_reference;
  options.capture_printf = capture_printf;
  options.cooperative_limit = sim::cooperative_limit(config::MachineConfig());
  return options;
}

launch::SessionOptions run_session_options(const RunArgs& args, bool capture_printf) {
  launch::SessionOptions options = session_options(args.budget, capture_printf);
  if (!args.config.empty() || !args.overrides.empty())
    options.cooperative_limit = sim::cooperative_limit(run_machine_config(args, false));
  if (args.out_of_bounds == "warn") options.out_of_bounds = ptx::OutOfBounds::warn;
  if (args.out_of_bounds == "error") options.out_of_bounds = ptx::OutOfBounds::error;
  const sim::ProgressStyle style = sim::progress_style(args.progress, args.quiet);
  if (style != sim::ProgressStyle::off) {
    const bool timing = args.mode == "timing" || (args.mode.empty() && !args.config.empty());
    options.progress = std::make_shared<sim::ProgressLine>(
        style, timing, sim::planned_launches(launch::load_launch(args.launch, args.launch_sets)));
  }
  return options;
}

namespace {

void write_stats(const Session& session, const SessionResult& result, const fs::path& dir,
                 const PreparedRun* prepared = nullptr) {
  nlohmann::json doc = launch::stats_json(session.launch(), session.module(), session.kernel(), result.stats,
                                          result.wall_seconds);
  launch::add_diagnostics(doc, result, false, session.launch().path.string());
  if (prepared) prepared->add_herding_stats(doc);
  write_stats_file(dir, doc);
}

}  // namespace

void check_machine_config(const fs::path& path) {
  config::MachineConfig::load(path);
}

int config_command(const fs::path& path, bool markdown) {
  if (markdown) {
    fmt::print("{}", config::schema_markdown());
    return 0;
  }
  if (path.empty()) throw std::runtime_error("config: give --check FILE or --markdown");
  const auto machine = config::MachineConfig::load(path);
  for (const std::string& warning : machine.warnings()) fmt::print(stderr, "simtlm: warning: {}\n", warning);
  for (const auto& spec : config::schema()) fmt::print("{} = {}\n", spec.path, machine.str(spec.path));
  return 0;
}

int run_command(const RunArgs& args) {
  if (args.mode != "functional" && args.mode != "timing" && !args.mode.empty()) {
    throw std::runtime_error("--mode must be functional or timing, not " + args.mode);
  }
  const bool timing = args.mode == "timing" || (args.mode.empty() && !args.config.empty());
  if (launch::load_launch(args.launch, args.launch_sets).is_sequence()) {
    if (timing) return run_sequence_timing_command(args);
  } else if (timing) {
    return run_timing_command(args);
  }
  if (!args.config.empty()) check_machine_config(args.config);
  if (!args.overrides.empty() || !args.trace_vcd.empty() || !args.trace_warps.empty()) {
    throw std::runtime_error(
        "--set, --trace-vcd and --trace-warps need the timing model (--config or --mode timing)");
  }
  if (launch::load_launch(args.launch, args.launch_sets).is_sequence()) return run_sequence_command(args);
  PreparedRun prepared = prepare_run(args, false);
  // Functionally, only the herding units (majority, popular_block) can run as RTL.
  const sim::UnitSelection units = rtl_selection(args.rtl, args.rtl_check);
  if (units.any_rtl() && (!prepared.herding || units.rtl_permutation || units.rtl_compactor)) {
    throw std::runtime_error(
        "--rtl and --rtl-check need the timing model (--config or --mode timing), except --rtl majority and "
        "--rtl popular_block in a herded run");
  }
  Session session(std::move(prepared.launch), prepared.options);
  prepared.check_herding(session);
  const fs::path dir = output_dir(args);
  launch::OutputSet outputs(dir);
  const SessionResult result = run_naming_launch(args, session);
  outputs.write_and_commit([&](const fs::path& staging) {
    launch::write_outputs(session.launch(), result.buffers, staging, {});
    write_stats(session, result, staging, &prepared);
  });
  if (!args.quiet) {
    const auto& s = result.stats;
    fmt::print("{}: kernel {}\n", args.launch.string(), session.kernel().name);
    fmt::print("  warp instructions   {}\n  thread instructions {}\n  SIMD utilization    {:.4f}\n",
               s.warp_instructions, s.thread_instructions, s.simd_utilization());
    fmt::print("  divergent branches  {} of {}\n  check               {}\n  outputs in          {}\n",
               s.divergent_branches, s.branches, check_status(result), dir.string());
  }
  print_failures(args, result);
  return result.ok() ? 0 : 1;
}

namespace {

// check's verdict: each refusal as run reports it (on stderr, one line each, kernel by kernel), then one line
// counting the refused kernels. Returns the exit status (1 when any kernel is refused, as run's).
// `machine` names only kernels that `refused` does not (a kernel the model cannot run is not put on a
// machine).
int report_refusals(const fs::path& launch_path, const std::vector<ptx::PtxError>& refused,
                    const std::vector<sim::MachineRefusal>& machine, size_t kernels) {
  if (refused.empty() && machine.empty()) return 0;
  for (const ptx::PtxError& refusal : refused) fmt::print(stderr, "simtlm: error: {}\n", refusal.what());
  std::set<std::string> names;
  for (const sim::MachineRefusal& refusal : machine) {
    fmt::print(stderr, "simtlm: error: {}: {}\n", launch_path.string(), refusal.reason);
    names.insert(refusal.kernel);
  }
  fmt::print("{}: refused ({} of {} launched kernels cannot run)\n", launch_path.string(),
             refused.size() + names.size(), kernels);
  return 1;
}

}  // namespace

int check_command(const RunArgs& args) {
  if (args.mode != "functional" && args.mode != "timing" && !args.mode.empty())
    throw std::runtime_error("--mode must be functional or timing, not " + args.mode);
  const bool timing = args.mode == "timing" || (args.mode.empty() && !args.config.empty());
  if (!timing && !args.overrides.empty())
    throw std::runtime_error("--set needs the timing model (--config or --mode timing)");
  if (!timing && !args.config.empty()) check_machine_config(args.config);
  std::optional<config::MachineConfig> machine;
  if (timing) machine.emplace(run_machine_config(args));
  const fs::path& launch_path = args.launch;
  launch::Launch loaded = launch::load_launch(launch_path);
  // A cooperative launch is held to the same machine as run's (--config and --set, else the defaults).
  launch::SessionOptions options = session_options(0, false);
  if (!args.config.empty() || !args.overrides.empty())
    options.cooperative_limit = sim::cooperative_limit(machine ? *machine : run_machine_config(args, false));
  if (loaded.is_sequence()) {
    const launch::SequenceSession session(std::move(loaded), options);
    size_t buffers = 0;
    for (const auto& spec : session.launch().buffers) {
      if (spec.is_symbol) continue;
      launch::init_buffer(session.launch(), spec);
      ++buffers;
    }
    const std::vector<sim::MachineRefusal> machine_refused =
        machine ? sim::machine_refusals(session, *machine) : std::vector<sim::MachineRefusal>{};
    if (const int status =
            report_refusals(launch_path, session.refusals(), machine_refused, session.kernel_count()))
      return status;
    fmt::print("{}: ok (a launch sequence, {} buffers)\n", launch_path.string(), buffers);
    return 0;
  }
  Session session(std::move(loaded), options);
  for (const auto& spec : session.launch().buffers) launch::init_buffer(session.launch(), spec);
  const std::vector<ptx::PtxError> refused = session.refusals();
  std::vector<sim::MachineRefusal> machine_refused;
  // Laying the launch out refuses a cooperative grid the machine cannot hold, as run does.
  if ((machine || session.launch().cooperative) && refused.empty()) {
    const std::unique_ptr<launch::DeviceImage> image = session.prepare_device();
    if (machine) machine_refused = sim::machine_refusals(session, *image, *machine);
  }
  if (const int status = report_refusals(launch_path, refused, machine_refused, 1)) return status;
  fmt::print("{}: ok (kernel {}, {} parameters, {} buffers)\n", launch_path.string(), session.kernel().name,
             session.kernel().params.size(), session.launch().buffers.size());
  return 0;
}

namespace {

struct DemoRow {
  fs::path file;
  std::map<std::string, std::string> sha256;  // of each final buffer
  std::string workload, kernel, status, error;
  ptx::RunStats stats;
  double divergent_fraction = 0;
};

std::vector<fs::path> find_launch_files(const fs::path& root) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    throw std::runtime_error(
        fmt::format("{}: no workloads directory here (use --workloads DIR)", root.string()));
  }
  std::vector<fs::path> files;
  for (const auto& dir : fs::directory_iterator(root)) {
    if (!dir.is_directory()) continue;
    for (const auto& entry : fs::directory_iterator(dir.path())) {
      const std::string ext = entry.path().extension().string();
      if (entry.is_regular_file() && (ext == ".yaml" || ext == ".yml")) files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

DemoRow run_demo_workload(const fs::path& file, const fs::path& out) {
  DemoRow row;
  row.file = file;
  row.workload = file.stem().string();
  try {
    launch::Launch loaded = launch::load_launch(file);
    if (loaded.is_sequence()) {
      launch::SequenceSession session(std::move(loaded), session_options(0, true));
      const SessionResult result = session.run();
      row.kernel = fmt::format("{} launches", result.launches.size());
      row.stats = result.stats;
      row.divergent_fraction = result.stats.branches
                                   ? double(result.stats.divergent_branches) / double(result.stats.branches)
                                   : 0.0;
      row.status = check_status(result);
      for (const auto& [name, bytes] : result.buffers) row.sha256[name] = launch::sha256_hex(bytes);
      if (!result.ok()) row.error = result.failures.front();
      const fs::path dir = out / row.workload;
      launch::write_outputs(session.launch(), result.buffers, dir, {});
      const std::string text = launch::sequence_stats_json(session, result, result.stats)
                                   .dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
                               "\n";
      launch::write_file_checked(dir / "stats.json", std::vector<uint8_t>(text.begin(), text.end()));
      return row;
    }
    Session session(std::move(loaded), session_options(0, true));
    row.kernel = session.launch().kernel;
    const SessionResult result = session.run();
    row.stats = result.stats;
    row.divergent_fraction =
        result.stats.branches ? double(result.stats.divergent_branches) / double(result.stats.branches) : 0.0;
    row.status = check_status(result);
    for (const auto& [name, bytes] : result.buffers) row.sha256[name] = launch::sha256_hex(bytes);
    if (!result.ok()) row.error = result.failures.front();
    const fs::path dir = out / row.workload;
    launch::write_outputs(session.launch(), result.buffers, dir, {});
    write_stats(session, result, dir);
    // Image outputs also go to the top of the output directory, e.g. out/mandelbrot.png, contrast-stretched
    // for viewing; the faithful pixels are in the workload's own directory.
    const auto& l = session.launch();
    for (const std::string& name : l.outputs) {
      if (!l.image_shape.count(name)) continue;
      const auto& spec = launch::find_buffer(l, name);
      const auto [w, h] = l.image_shape.at(name);
      const size_t images = std::count_if(l.outputs.begin(), l.outputs.end(),
                                          [&](const std::string& n) { return l.image_shape.count(n) != 0; });
      const std::string png = images == 1 ? row.workload + ".png" : row.workload + "-" + name + ".png";
      launch::write_file_checked(
          out / png, launch::encode_png(w, h, launch::to_gray8(spec.type, result.buffers.at(name), true)));
    }
  } catch (const launch::OutputError&) {
    throw;  // a write failed: the demo's output set must not be committed incomplete
  } catch (const std::exception& e) {
    row.status = "ERROR";
    row.error = e.what();
  }
  return row;
}

// NAME_large.yaml (the SLP study; nbody_large.yaml the herding study) and NAME_paper.yaml (the paper-scale
// Robust SIMD study) run NAME.yaml's kernel at a study's size (workloads/README.md): minutes on the timing
// model, and more cycles than the default budget on configs/default.yaml. The demo runs the suite's own
// sizes.
bool is_study_sized(const fs::path& file) {
  const std::string stem = file.stem().string();
  return stem.ends_with("_large") || stem.ends_with("_paper");
}

}  // namespace

int demo_command(const DemoArgs& args) {
  std::vector<fs::path> files;
  std::vector<std::string> study_sized;
  for (fs::path& file : find_launch_files(args.workloads)) {
    if (is_study_sized(file)) {
      study_sized.push_back(file.stem().string());
    } else {
      files.push_back(std::move(file));
    }
  }
  if (files.empty() && study_sized.empty())
    throw std::runtime_error(fmt::format("{}: no */*.yaml launch files found", args.workloads.string()));
  launch::OutputSet outputs(args.out);
  const auto start = std::chrono::steady_clock::now();
  std::vector<DemoRow> rows;
  outputs.write_and_commit([&](const fs::path& staging) {
    for (const fs::path& file : files) rows.push_back(run_demo_workload(file, staging));
  });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  size_t name_width = 8, kernel_width = 6;
  for (const auto& r : rows) {
    name_width = std::max(name_width, r.workload.size());
    kernel_width = std::max(kernel_width, std::min<size_t>(r.kernel.size(), 32));
  }
  const std::string header =
      fmt::format("{:<{}}  {:<{}}  {:>14}  {:>16}  {:>9}  {:>9}  {}", "workload", name_width, "kernel",
                  kernel_width, "warp instr", "thread instr", "SIMD util", "divergent", "match");
  fmt::print("{}\n{}\n", header, std::string(header.size(), '-'));
  bool all_ok = true;
  for (const auto& r : rows) {
    all_ok = all_ok && (r.status == "yes" || r.status == "n/a");
    if (r.status == "ERROR") {
      fmt::print("{:<{}}  {:<{}}  {:>14}  {:>16}  {:>9}  {:>9}  {}\n", r.workload, name_width,
                 r.kernel.substr(0, 32), kernel_width, "-", "-", "-", "-", r.status);
      continue;
    }
    fmt::print("{:<{}}  {:<{}}  {:>14}  {:>16}  {:>8.1f}%  {:>8.1f}%  {}\n", r.workload, name_width,
               r.kernel.substr(0, 32), kernel_width, r.stats.warp_instructions, r.stats.thread_instructions,
               100.0 * r.stats.simd_utilization(), 100.0 * r.divergent_fraction, r.status);
  }
  fmt::print("\n{} workloads in {:.1f} s; outputs in {}\n", rows.size(), seconds, args.out.string());
  if (!study_sized.empty()) {
    fmt::print(
        "Not run here: the study-sized launch files {} "
        "(scripts/study-slp, study-robust-simd and study-herding run them).\n",
        fmt::join(study_sized, ", "));
  }
  for (const auto& r : rows) {
    if (!r.error.empty()) fmt::print(stderr, "simtlm: error: {}: {}\n", r.workload, r.error);
  }
  std::vector<DemoTimingInput> timing_inputs;
  for (const auto& r : rows) timing_inputs.push_back({r.file, r.workload, r.sha256});
  const bool timing_ok = print_timing_table(timing_inputs, args.config);
  const bool compaction_ok = print_compaction_table(args.workloads, args.config);
  const bool herding_ok = print_herding_table(args.workloads, args.config);
  // Robust SIMD needs the paper's WPU machine, found next to the timing table's configuration.
  const bool robust_ok = print_robust_table(args.workloads, args.config.parent_path() / "mv5-wpu.yaml");
  return all_ok && timing_ok && compaction_ok && herding_ok && robust_ok ? 0 : 1;
}

}  // namespace simtlm::cli
