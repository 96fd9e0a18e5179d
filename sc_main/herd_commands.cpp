// `simtlm herd-safety` and `simtlm herd-profile` (docs/herding.md).
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "sc_main/commands.hpp"
#include "studies/herd_profile.hpp"
#include "studies/herd_safety_report.hpp"
#include "sweep/sweep_job.hpp"

namespace simtlm::cli {

namespace fs = std::filesystem;

namespace {

struct SafetyArgs {
  fs::path launch;
  bool json = false;
};

struct ProfileArgs {
  studies::HerdProfileRequest request;
  fs::path out;
  std::string only;
  bool quiet = false;
};

int herd_safety_command(const SafetyArgs& args) {
  const launch::Launch loaded = launch::load_launch(args.launch);
  if (args.json) {
    fmt::print("{}\n", studies::herd_safety_json(loaded).dump(2));
  } else {
    fmt::print("{}", studies::herd_safety_report(loaded));
  }
  return 0;
}

int herd_profile_command(ProfileArgs& args) {
  studies::HerdProfileRequest& request = args.request;
  if (!args.only.empty()) {
    request.branches = args.only == "branches";
    request.loads = args.only == "loads";
  }
  if (!args.quiet)
    request.log = [](const std::string& line) { fmt::print(stderr, "herd-profile: {}\n", line); };
  const studies::HerdProfileResult result = studies::herd_profile(request);
  const fs::path file =
      args.out.empty() ? fs::path("out") / (request.launch.stem().string() + "-herd-profile.yaml") : args.out;
  const std::string yaml = studies::herd_profile_yaml(request, result);
  const std::string json = studies::herd_profile_json(request, result).dump(2) + "\n";
  std::error_code ec;
  if (file.has_parent_path()) fs::create_directories(file.parent_path(), ec);
  sweep::write_file_atomically(file, yaml);
  fs::path json_file = file;
  json_file.replace_extension(".json");
  sweep::write_file_atomically(json_file, json);
  if (!args.quiet) fmt::print("{}written to {} (steps in {})\n", yaml, file.string(), json_file.string());
  return 0;
}

}  // namespace

void add_herd_commands(CLI::App& app, std::function<int()>& action) {
  auto safety = std::make_shared<SafetyArgs>();
  CLI::App* safety_cmd = app.add_subcommand("herd-safety",
                                            "Print the static herding-safety analysis of a launch file's "
                                            "kernel: every conditional branch and load, "
                                            "safe or unsafe to herd, and why (docs/ir.md)");
  safety_cmd->add_option("--launch", safety->launch, "Launch file (YAML)")->required();
  safety_cmd->add_flag("--json", safety->json, "Print JSON instead of the table");
  safety_cmd->callback([safety, &action] { action = [safety] { return herd_safety_command(*safety); }; });

  auto profile = std::make_shared<ProfileArgs>();
  CLI::App* profile_cmd = app.add_subcommand(
      "herd-profile",
      "Choose the branches and loads to herd and the herding-instance threshold that keep the output quality "
      "loss under a bound on profiled inputs (the paper's Figure 11; docs/herding.md)");
  profile_cmd->add_option("--launch", profile->request.launch, "Launch file (YAML)")->required();
  profile_cmd
      ->add_option("--inputs", profile->request.inputs,
                   "Profiled inputs: the launch file with seeds seed+1000 .. seed+1000+N-1 (default 3)")
      ->check(CLI::Range(1u, 100u));
  profile_cmd
      ->add_option("--max-quality-loss", profile->request.max_quality_loss,
                   "Bound on the fraction of mismatching output bytes, 0..1 (default 0.01)")
      ->check(CLI::Range(0.0, 1.0));
  profile_cmd->add_option(
      "--config", profile->request.config,
      "Measure speed in timing cycles on this machine (default: functional warp instructions)");
  profile_cmd->add_option("--only", profile->only, "branches or loads (default both)")
      ->check(CLI::IsMember({"branches", "loads"}));
  profile_cmd->add_option("--launch-set", profile->request.launch_sets,
                          "Replace a top-level key of the launch file (as for run; repeatable)");
  profile_cmd->add_option("--budget", profile->request.budget, "Thread-instruction budget of each run");
  profile_cmd->add_option(
      "--out", profile->out,
      "The herding: section written (default out/<name>-herd-profile.yaml; the steps go to "
      "the same name with .json)");
  profile_cmd->add_flag("--quiet", profile->quiet, "Print nothing but errors");
  profile_cmd->callback(
      [profile, &action] { action = [profile] { return herd_profile_command(*profile); }; });
}

}  // namespace simtlm::cli
