#include "sim/herding_run.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "models/launch/buffers.hpp"

namespace simtlm::sim {
namespace {

launch::HerdTargets parse_targets(const std::string& text, const std::string& option) {
  launch::HerdTargets targets;
  if (text == "all") {
    targets.all = true;
    return targets;
  }
  for (const std::string& entry : split_list(text, option)) {
    try {
      targets.sites.push_back(launch::parse_herd_site(entry));
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(option + ": " + e.what());
    }
  }
  return targets;
}

}  // namespace

std::vector<const ptx::Function*> entry_kernels(const ptx::Module& module) {
  std::vector<const ptx::Function*> kernels;
  for (const ptx::Function& f : module.functions) {
    if (f.is_entry) kernels.push_back(&f);
  }
  return kernels;
}

bool HerdingCli::given() const {
  return !branches.empty() || !loads.empty() || !buffers.empty() || max_instances || branch_cycles ||
         load_cycles || block_bytes || group_lanes || force_unsafe || !safety.empty() || off;
}

std::vector<std::string> split_list(const std::string& text, const std::string& option) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(start, end - start);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (item.empty()) throw std::runtime_error(option + ": an empty entry in '" + text + "'");
    out.push_back(item);
    start = end + 1;
  }
  return out;
}

launch::HerdingSpec effective_herding(const launch::Launch& launch, const HerdingCli& cli) {
  launch::HerdingSpec spec = cli.off ? launch::HerdingSpec{} : launch.herding;
  if (!cli.branches.empty()) spec.branches = parse_targets(cli.branches, "--herd-branches");
  if (!cli.loads.empty()) spec.loads = parse_targets(cli.loads, "--herd-loads");
  if (!cli.buffers.empty()) spec.buffers = split_list(cli.buffers, "--herd-buffers");
  // "largest": the paper herds "the largest data structure"; ties go to the first buffer of the file.
  for (std::string& name : spec.buffers) {
    if (name != "largest") continue;
    const launch::BufferSpec* largest = nullptr;
    for (const launch::BufferSpec& b : launch.buffers) {
      if (!b.is_symbol && (!largest || b.count * launch::element_bytes(b.type) >
                                           largest->count * launch::element_bytes(largest->type)))
        largest = &b;
    }
    if (!largest) throw std::runtime_error("--herd-buffers largest: the launch file declares no buffer");
    name = largest->name;
  }
  if (cli.max_instances) spec.max_instances = *cli.max_instances;
  if (cli.branch_cycles) spec.branch_cycles = *cli.branch_cycles;
  if (cli.load_cycles) spec.load_cycles = *cli.load_cycles;
  if (cli.block_bytes) spec.block_bytes = *cli.block_bytes;
  if (cli.group_lanes) spec.group_lanes = *cli.group_lanes;
  if (cli.force_unsafe) spec.force_unsafe = true;
  if (!cli.safety.empty()) {
    if (cli.safety != "strict" && cli.safety != "relaxed")
      throw std::runtime_error("--herd-safety: expected strict or relaxed, not '" + cli.safety + "'");
    spec.safety = cli.safety == "relaxed" ? ptx::HerdSafetyRule::relaxed : ptx::HerdSafetyRule::strict;
  }
  try {
    launch::check_herding_spec(spec);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(std::string("herding: ") + e.what());
  }
  return spec;
}

HerdingRun::HerdingRun(launch::HerdingSpec spec, const hw::UnitSelection& units) {
  hw::UnitSelection mine;
  mine.rtl_majority = units.rtl_majority;
  mine.rtl_popular_block = units.rtl_popular_block;
  mine.check = units.check && mine.any_rtl();
  hw::UnitOptions options;
  options.majority_tie =
      spec.tie == launch::HerdTie::taken ? hw::MajorityTie::kTaken : hw::MajorityTie::kNotTaken;
  units_ = hw::make_unit_set(mine, ptx::kWarpSize, options, &unit_cycle_);
  herding_ = std::make_unique<hw::Herding>(std::move(spec), *units_.majority, *units_.popular_block);
  use_machine(config::MachineConfig());
}

void HerdingRun::use_machine(const config::MachineConfig& machine) {
  try {
    herding_->set_selector_rounds(hw::herding_params(machine).selector_rounds);
  } catch (const std::invalid_argument& e) {
    throw config::ConfigError(fmt::format("{}: lsu.herding_selector_rounds: {}", machine.origin(), e.what()));
  }
}

HerdingRun::~HerdingRun() = default;

ptx::ExecutionHooks HerdingRun::hooks() {
  ptx::ExecutionHooks hooks;
  const launch::HerdingSpec& spec = herding_->spec();
  if (spec.branches.any()) hooks.branch = herding_.get();
  if (spec.loads.any() || !spec.buffers.empty()) hooks.load = herding_.get();
  return hooks;
}

void HerdingRun::check(const launch::Launch& launch, const ptx::Module& module,
                       const std::vector<const ptx::Function*>& kernels) const {
  std::vector<std::string> buffers;
  for (const launch::BufferSpec& b : launch.buffers) buffers.push_back(b.name);
  try {
    hw::check_sites(herding_->spec(), module, kernels, buffers);
    for (const ptx::Function* kernel : kernels) hw::plan_kernel(herding_->spec(), module, *kernel);
  } catch (const hw::HerdPlanError& e) {
    throw std::runtime_error(fmt::format("{}: {}", launch.path.string(), e.what()));
  }
}

stats::Group HerdingRun::statistics() const {
  return herding_->statistics();
}

std::unique_ptr<HerdingRun> prepare_herding(launch::Launch& launch, const HerdingCli& cli,
                                            const hw::UnitSelection& units, launch::SessionOptions& options,
                                            const config::MachineConfig* machine) {
  launch::HerdingSpec spec = effective_herding(launch, cli);
  if (!spec.any()) return nullptr;
  auto run = std::make_unique<HerdingRun>(std::move(spec), units);
  if (machine) run->use_machine(*machine);
  options.hooks = run->hooks();
  launch.reference.clear();
  return run;
}

}  // namespace simtlm::sim
