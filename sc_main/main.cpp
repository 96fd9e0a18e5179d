// Entry point of the simtlm command. SystemC's library provides main() and calls sc_main().
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <new>

#include "sc_main/commands.hpp"
#include "sc_main/sweep_command.hpp"
#include "sim/timing_run.hpp"

namespace {

// SystemC prints its banner from main() before sc_main() is called, so the variable must be set while
// static objects are initialized. sc_main sets it again in case another main() calls it directly.
const bool kBannerDisabled = setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1) == 0;

}  // namespace

extern "C" int sc_main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  (void)kBannerDisabled;
  simtlm::cli::install_process_guards();
  CLI::App app{"simtlm: a SystemC/TLM model of a SIMT GPU core running nvcc's PTX"};
  app.require_subcommand(1);

  simtlm::cli::RunArgs run;
  CLI::App* run_cmd =
      app.add_subcommand("run", "Run the kernel of a launch file and write its outputs and stats.json");
  run_cmd->add_option("--launch", run.launch, "Launch file (YAML)")->required();
  run_cmd->add_option("--out", run.out, "Output directory (default: out/<launch file name>)");
  run_cmd->add_option(
      "--config", run.config,
      "Machine configuration (configs/*.yaml, docs/configs.md); runs the SystemC timing model");
  run_cmd->add_option("--mode", run.mode,
                      "functional (no timing) or timing (default: timing when --config is given; the timing "
                      "model runs on the defaults of docs/configs.md without one)");
  run_cmd->add_option("--set", run.overrides,
                      "Override a configuration parameter: --set stack.entries=8 (repeatable)");
  run_cmd->add_option("--launch-set", run.launch_sets,
                      "Replace a top-level key of the launch file: --launch-set 'params=[out, 8]', "
                      "--launch-set seed=3 (value in YAML; repeatable)");
  run_cmd->add_option(
      "--trace-vcd", run.trace_vcd,
      "Timing mode: write a waveform (issue slot and mask, per-warp active mask and stack depth)");
  run_cmd->add_option(
      "--trace-warps", run.trace_warps,
      "Timing mode: write one line per issued warp instruction (cycle, SM, CTA, warp, PC, mask)");
  run_cmd->add_option("--budget", run.budget,
                      "Thread-instruction budget (overrides the launch file's budget)");
  run_cmd->add_option(
      "--rtl", run.rtl,
      "Timing mode: units that run as Verilated RTL instead of their C++ model: all, or any of "
      "permutation, majority, compactor, popular_block (comma-separated)");
  run_cmd->add_flag(
      "--rtl-check", run.rtl_check,
      "Timing mode: run the C++ model and the RTL of the --rtl units (default all) side by side and "
      "stop at the first disagreement with a report");
  run_cmd
      ->add_option("--out-of-bounds", run.out_of_bounds,
                   "error or warn: overrides the launch file's out_of_bounds (warn: loads outside every "
                   "buffer read zeros, stores are dropped, both are counted)")
      ->check(CLI::IsMember({"error", "warn"}));
  run_cmd->add_flag("--quiet", run.quiet,
                    "Print nothing but errors (no progress line, even with --progress)");
  run_cmd->add_flag("--progress", run.progress,
                    "Show the progress line on stderr even when it is not a terminal, as plain lines (on a "
                    "terminal it is always shown)");
  simtlm::cli::add_herding_options(*run_cmd, run.herding);

  simtlm::cli::DemoArgs demo;
  CLI::App* demo_cmd = app.add_subcommand(
      "demo",
      "Run every workloads/*/*.yaml (not the study-sized *_large.yaml and *_paper.yaml) functionally and "
      "on the timing model, and print tables of statistics");
  demo_cmd->add_option("--workloads", demo.workloads, "Directory of workloads (default: workloads)");
  demo_cmd->add_option("--out", demo.out, "Output directory (default: out/demo)");
  demo_cmd->add_option(
      "--config", demo.config,
      "Machine of the timing table (default: configs/default.yaml; the table is skipped when "
      "the file does not exist); the Robust SIMD table runs mv5-wpu.yaml from the same directory");

  simtlm::cli::CompareArgs compare;
  CLI::App* compare_cmd = app.add_subcommand(
      "compare",
      "Run a kernel under no compaction, TBC with every lane permutation and ideal compaction, and "
      "print SIMD utilization and compaction rates (docs/slp.md)");
  compare_cmd->add_option("--launch", compare.launch, "Launch file (YAML)")->required();
  compare_cmd->add_option("--out", compare.out,
                          "Output directory for compare.json (default: out/<name>-compare)");
  compare_cmd->add_option(
      "--permutations", compare.permutations,
      "all, or a comma-separated list of: identity, balanced, odd_even, xor_half, random, wid, "
      "rev_wid, flip_odd, rotate_odd_1");
  compare_cmd->add_option("--seed", compare.seed, "Seed of the random permutation (default 1)");
  compare_cmd->add_option("--budget", compare.budget, "Thread-instruction budget");
  compare_cmd->add_flag("--paths", compare.paths,
                        "Also write every dynamic path of a divergent CTA-wide branch (PC, CTA, side, active "
                        "threads, warps per mechanism) to paths.jsonl");
  compare_cmd->add_option(
      "--config", compare.config,
      "Also run every mechanism on the SystemC model of this machine: cycles, IPC, speedup over "
      "no compaction, L1 miss rate");
  compare_cmd->add_option("--rtl", compare.rtl,
                          "Units that run as Verilated RTL: permutation and/or compactor (comma-separated)");
  compare_cmd->add_option("--launch-set", compare.launch_sets,
                          "Replace a top-level key of the launch file (as for run; repeatable)");
  compare_cmd->add_flag("--quiet", compare.quiet, "Print nothing but errors");
  compare_cmd->add_flag(
      "--herding", compare.herding_mode,
      "Compare the exact run with the herded one (the launch file's herding: section and the "
      "--herd-* options): output quality per buffer, PNG images, speed-up with --config");
  simtlm::cli::add_herding_options(*compare_cmd, compare.herding);
  compare_cmd->add_flag("--rtl-check", compare.rtl_check,
                        "Run the C++ models and the RTL of the --rtl units side by side; stop at the first "
                        "disagreement with a report");

  simtlm::cli::RunArgs check;
  CLI::App* check_cmd = app.add_subcommand(
      "check",
      "Validate a launch file against its PTX without running it; with --config, --set or --mode timing also "
      "against the machine (the refusals run would make there)");
  check_cmd->add_option("--launch", check.launch, "Launch file (YAML)")->required();
  check_cmd->add_option("--config", check.config, "Machine configuration, as for run");
  check_cmd->add_option("--mode", check.mode, "functional or timing, as for run");
  check_cmd->add_option("--set", check.overrides,
                        "Override a configuration parameter, as for run (repeatable)");

  CLI::App* config_cmd =
      app.add_subcommand("config", "Validate a machine configuration, or print its reference");
  std::filesystem::path config_file;
  bool config_markdown = false;
  config_cmd->add_option("--check", config_file, "Machine configuration to validate");
  config_cmd->add_flag("--markdown", config_markdown, "Print the parameter reference (docs/configs.md)");

  simtlm::cli::SweepArgs sweep;
  CLI::App* sweep_cmd = app.add_subcommand(
      "sweep",
      "Run every job of a sweep file (launches x configs x overrides x mechanisms x seeds) here or on Slurm, "
      "resuming where a previous run stopped (docs/sweeps.md)");
  sweep_cmd->add_option("sweep_file", sweep.sweep_file, "Sweep file (YAML)");
  sweep_cmd->add_option("--out", sweep.out, "Sweep directory (default: out/<sweep file name>)");
  sweep_cmd->add_option("--status", sweep.status,
                        "Print the counts and failures of the sweep in DIR and exit");
  sweep_cmd
      ->add_option("--jobs,-j", sweep.jobs, "Jobs at once on this machine (default: the number of cores)")
      ->check(CLI::Range(1u, 4096u));
  sweep_cmd->add_flag("--retry-failed", sweep.retry_failed, "Run the jobs that failed again");
  sweep_cmd->add_flag(
      "--prune", sweep.prune,
      "Remove the job directories no job of the sweep uses (older simulator builds, removed values)");
  sweep_cmd->add_option("--backend", sweep.backend, "local (default) or slurm")
      ->check(CLI::IsMember({"local", "slurm"}));
  sweep_cmd->add_option("--partition", sweep.partition, "Slurm: the partition of the array tasks");
  sweep_cmd->add_option("--time", sweep.time, "Slurm: the time limit of one array task (sbatch --time)");
  sweep_cmd->add_option("--mem", sweep.mem, "Slurm: the memory of one array task (sbatch --mem)");
  sweep_cmd->add_option("--chunk", sweep.chunk, "Slurm: jobs per array task (default 1)")
      ->check(CLI::Range(1u, 100000u));
  sweep_cmd->add_flag(
      "--resume", sweep.resume,
      "Slurm: wait for the directory's array job if it is still queued or running, then submit "
      "only what is missing");
  sweep_cmd->add_flag("--progress", sweep.progress,
                      "Show the progress line even when stderr is not a terminal");
  sweep_cmd->add_flag("--quiet", sweep.quiet, "Print nothing but errors");

  simtlm::cli::SweepTaskArgs sweep_task;
  CLI::App* sweep_task_cmd =
      app.add_subcommand("sweep-task", "One Slurm array task of a sweep (written by --backend slurm)")
          ->group("");
  sweep_task_cmd->add_option("dir", sweep_task.dir, "Sweep directory")->required();
  sweep_task_cmd->add_option("--list", sweep_task.list, "File of job ids, one per line")->required();
  sweep_task_cmd->add_option("--index", sweep_task.index, "The array task's index")->required();
  sweep_task_cmd->add_option("--chunk", sweep_task.chunk, "Jobs per task")->check(CLI::Range(1u, 100000u));

  // Hidden: prints docs/stats-schema.md, generated from the statistics declarations (scripts/gen-stats-doc).
  CLI::App* stats_schema_cmd = app.add_subcommand("stats-schema", "Print docs/stats-schema.md")->group("");

  std::function<int()> herd_action;
  simtlm::cli::add_herd_commands(app, herd_action);
  std::function<int()> replay_action;
  simtlm::cli::add_replay_command(app, replay_action);
  simtlm::cli::guard_numeric_options(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "simtlm: error: " << e.what() << "\n"
              << "Run with --help for usage.\n";
    return 1;
  }

  try {
    if (*run_cmd) return simtlm::cli::run_command(run);
    if (*demo_cmd) return simtlm::cli::demo_command(demo);
    if (*check_cmd) return simtlm::cli::check_command(check);
    if (*compare_cmd) return simtlm::cli::compare_command(compare);
    if (*sweep_cmd) return simtlm::cli::sweep_command(sweep);
    if (*sweep_task_cmd) return simtlm::cli::sweep_task_command(sweep_task);
    if (*config_cmd) return simtlm::cli::config_command(config_file, config_markdown);
    if (herd_action) return herd_action();
    if (replay_action) return replay_action();
    if (*stats_schema_cmd) {
      std::cout << simtlm::sim::stats_schema_markdown();
      return 0;
    }
  } catch (const std::bad_alloc&) {
    std::cerr << "simtlm: error: out of host memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "simtlm: error: " << e.what() << "\n";
    return 1;
  } catch (...) {
    std::cerr << "simtlm: error: unexpected internal error\n";
    return 1;
  }
  return 1;
}
