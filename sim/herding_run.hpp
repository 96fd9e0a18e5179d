// Branch and data herding for one run (docs/herding.md): the launch file's `herding:` section with the
// command line's --herd-* options on top, the hooks that carry it out (hw/herding/) installed on the session,
// and their statistics for stats.json. The same object serves the functional and the timing model.
//
// Usage:
//   launch::Launch launch = launch::load_launch(path);
//   launch::SessionOptions options = ...;
//   // null: no herding; a timed run passes its machine (the selector's latency), a functional one nullptr
//   std::unique_ptr<HerdingRun> herding = prepare_herding(launch, cli, units, options, &machine);
//   launch::Session session(std::move(launch), options);
//   if (herding) herding->check(session.launch(), session.module(), {&session.kernel()});
//   ... run ...;  if (herding) doc["herding"] = herding->statistics().json();
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "hw/herding/herding_hooks.hpp"
#include "hw/units/select/unit_set.hpp"
#include "models/config/machine_config.hpp"
#include "models/launch/session.hpp"

namespace simtlm::sim {

// The --herd-* options of `simtlm run` and `simtlm compare`.
struct HerdingCli {
  std::string branches;  // "all" or comma-separated sites (PC or FILE:LINE); empty: the launch file's
  std::string loads;     // likewise, for data herding by static load
  std::string buffers;   // comma-separated buffer names: data herding of the loads that read them
  std::optional<uint64_t> max_instances;
  std::optional<uint32_t> branch_cycles;
  std::optional<uint32_t> load_cycles;
  std::optional<uint32_t> block_bytes;
  std::optional<uint32_t> group_lanes;
  bool force_unsafe = false;
  std::string safety;  // --herd-safety: "strict" or "relaxed"; empty: the launch file's
  bool off = false;    // --no-herding: ignore the launch file's section
  bool given() const;
};

// The herding a run does: the launch file's section, each option given replacing its key.
// Throws std::runtime_error naming the option for a malformed value.
launch::HerdingSpec effective_herding(const launch::Launch& launch, const HerdingCli& cli);

class HerdingRun {
 public:
  // Only the majority and popular_block entries of `units` matter (--rtl, --rtl-check).
  HerdingRun(launch::HerdingSpec spec, const hw::UnitSelection& units);
  ~HerdingRun();
  ptx::ExecutionHooks hooks();
  // The machine whose coalescer herds: its popular-block selector (lsu.herding_selector_rounds) sets a herded
  // load's latency unless the spec gives load_cycles. Until called, the schema's default machine. Throws
  // config::ConfigError naming the machine's origin and the key when the rounds do not divide the herding
  // group.
  void use_machine(const config::MachineConfig& machine);
  // Refuses sites that name nothing of the kernels the launch runs, unknown buffers and kernels, and sites
  // the safety analysis calls unsafe (unless forced), before anything runs. Throws std::runtime_error.
  void check(const launch::Launch& launch, const ptx::Module& module,
             const std::vector<const ptx::Function*>& kernels) const;
  stats::Group statistics() const;
  const hw::Herding& herding() const { return *herding_; }
  // Count, never herd (the profiler's candidate search).
  void observe_only() { herding_->set_observe_only(true); }

 private:
  uint64_t unit_cycle_ = 0;
  hw::UnitSet units_;
  std::unique_ptr<hw::Herding> herding_;
};

// The run's herding, or nullptr when it herds nothing. Installs the hooks on `options` and drops the launch's
// host reference (it checks the exact kernel, which a herded run is not).
// `machine`: a timed run's, whose selector sets a herded load's latency (use_machine); nullptr: functional.
std::unique_ptr<HerdingRun> prepare_herding(launch::Launch& launch, const HerdingCli& cli,
                                            const hw::UnitSelection& units, launch::SessionOptions& options,
                                            const config::MachineConfig* machine = nullptr);

// The module's entry functions: the kernels a launch sequence may run.
std::vector<const ptx::Function*> entry_kernels(const ptx::Module& module);

// Splits "a, b,c" at commas, trimming spaces; empty entries are an error naming `option`.
std::vector<std::string> split_list(const std::string& text, const std::string& option);

}  // namespace simtlm::sim
