// `simtlm sweep` (docs/sweeps.md): parses, hands the jobs to a backend, prints the tally.
#include "sc_main/sweep_command.hpp"

#include <fmt/format.h>

#include <csignal>
#include <stdexcept>
#include <thread>

#include "sweep/sweep_file.hpp"
#include "sweep/sweep_local.hpp"
#include "sweep/sweep_slurm.hpp"
#include "sweep/sweep_store.hpp"

namespace simtlm::cli {

namespace fs = std::filesystem;

namespace {

extern "C" void on_stop_signal(int) {
  sweep::request_stop();
}

void install_stop_handlers() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &action, nullptr);
  // Beyond RLIMIT_FSIZE a write fails with EFBIG and is reported, instead of SIGXFSZ killing the sweep.
  std::signal(SIGXFSZ, SIG_IGN);
}

}  // namespace

int sweep_command(const SweepArgs& args) {
  if (!args.status.empty()) {
    fmt::print("{}", sweep::status_report(args.status));
    return 0;
  }
  if (args.sweep_file.empty()) throw std::runtime_error("sweep: give a sweep file, or --status DIR");
  if (args.backend != "local" && args.backend != "slurm")
    throw std::runtime_error("--backend must be local or slurm, not " + args.backend);
  if (args.backend == "local" && (!args.partition.empty() || !args.time.empty() || !args.mem.empty()))
    throw std::runtime_error("--partition, --time and --mem are options of --backend slurm");
  const sweep::SweepSpec spec = sweep::load_sweep_file(args.sweep_file);
  const fs::path dir = args.out.empty() ? fs::path("out") / args.sweep_file.stem() : args.out;
  install_stop_handlers();
  const sweep::SweepLock lock(dir);
  const std::vector<sweep::JobSpec> plan = sweep::expand_jobs(spec, sweep::simtlm_version());
  sweep::write_plan(dir, plan, sweep::sweep_summary(spec));
  if (args.prune) {
    const size_t removed = sweep::prune_jobs(dir, plan);
    if (!args.quiet)
      fmt::print(stderr, "sweep: removed {} job directories the plan no longer uses\n", removed);
  }
  std::vector<sweep::JobSpec> pending;
  for (const sweep::JobSpec& job : sweep::distinct_jobs(plan))
    if (sweep::needs_run(sweep::read_status(dir, job), args.retry_failed)) pending.push_back(job);
  const size_t distinct = sweep::distinct_jobs(plan).size();
  if (!args.quiet) {
    fmt::print(stderr, "sweep {}: {} jobs ({} distinct), {} to run, into {}\n", args.sweep_file.string(),
               plan.size(), distinct, pending.size(), dir.string());
  }
  sweep::SweepProgress progress(progress_style(args.progress, args.quiet));
  if (args.backend == "slurm") {
    sweep::SlurmOptions options;
    options.partition = args.partition;
    options.time = args.time;
    options.mem = args.mem;
    options.chunk = args.chunk;
    options.resume = args.resume;
    sweep::run_on_slurm(dir, pending, options, progress);
  } else {
    const std::string warning = sweep::refuse_if_array_queued(dir);
    if (!warning.empty()) fmt::print(stderr, "simtlm sweep: warning: {}\n", warning);
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    sweep::run_local(dir, pending, args.jobs == 0 ? cores : args.jobs, progress);
  }
  const sweep::SweepCounts counts = sweep::merge_results(dir);
  if (!args.quiet) {
    fmt::print("{}: {} jobs: {} done, {} failed, {} not run; tables in {}\n", dir.string(), counts.jobs,
               counts.done, counts.failed, counts.missing, (dir / "results.csv").string());
    if (counts.failed > 0)
      fmt::print("failures: {} (simtlm sweep --status {})\n", (dir / "failed.csv").string(), dir.string());
  }
  if (sweep::stop_requested()) {
    fmt::print(stderr, "sweep stopped; run the same command{} to resume\n",
               args.backend == "slurm" ? " with --resume" : " again");
    return 130;
  }
  return counts.done == counts.jobs ? 0 : 1;
}

int sweep_task_command(const SweepTaskArgs& args) {
  install_stop_handlers();
  return sweep::run_sweep_task(args.dir, args.list, args.index, args.chunk);
}

}  // namespace simtlm::cli
