#include "hw/divergence/wpu_stats.hpp"

namespace simtlm::hw {

using stats::GroupDecl;
using stats::Type;

namespace {

std::shared_ptr<const GroupDecl> make_interval_decl() {
  auto d = std::make_shared<GroupDecl>("interval", "one sampling interval of the adaptation phase");
  d->label("start_cycle", Type::integer, "cycle the interval began (after the previous reconfiguration)")
      .label("cycles", Type::integer, "its length, cycles")
      .label("tasks", Type::integer, "tasks completed in it")
      .label("width", Type::integer, "SIMD width sampled")
      .label("depth", Type::integer, "multithreading depth sampled")
      .label("cpt", Type::real, "cycles per task, `cycles / tasks`")
      .label("phase", Type::text, "`adapt`, `dws_trial` (RobustDWS) or `tail` (tasks ran out)");
  return d;
}

const std::shared_ptr<const GroupDecl>& interval_decl() {
  static const std::shared_ptr<const GroupDecl> decl = make_interval_decl();
  return decl;
}

std::shared_ptr<const GroupDecl> make_wpu_row_decl() {
  auto d = std::make_shared<GroupDecl>("wpu", "one WPU");
  d->label("width", Type::integer, "width of the execution phase (the one adaptation converged on)")
      .label("depth", Type::integer, "depth of the execution phase")
      .label("fallback", Type::integer, "1: too few tasks to adapt, the fallback organization ran")
      .label("dws", Type::integer, "1: dynamic warp subdivision ran in the execution phase")
      .counter("tasks", "tasks", "tasks completed")
      .counter("cycles", "cycles", "from the WPU's start to its last task")
      .counter("adaptation_cycles", "cycles", "cycles of the adaptation phase's intervals")
      .ratio("adaptation_share", "`adaptation_cycles / cycles`", "adaptation_cycles", "cycles")
      .list("intervals", interval_decl(), "the sampling intervals in order");
  return d;
}

const std::shared_ptr<const GroupDecl>& wpu_row_decl() {
  static const std::shared_ptr<const GroupDecl> decl = make_wpu_row_decl();
  return decl;
}

}  // namespace

const GroupDecl& wpu_stats_decl() {
  static const GroupDecl decl = [] {
    GroupDecl d(
        "wpu",
        "task mode (divergence.unit: warp_slices): warp-slices, Robust SIMD and DWS (docs/robust-simd.md)");
    d.label("policy", Type::text, "`static`, `robust`, `dws` or `robust_dws`; empty outside task mode")
        .counter("tasks", "tasks", "tasks completed, all WPUs")
        .counter("cycles", "cycles", "WPU-cycles from each WPU's start to its last task, summed")
        .counter("adaptation_cycles", "cycles", "cycles of adaptation-phase intervals, summed over WPUs")
        .ratio("adaptation_share", "`adaptation_cycles / cycles`", "adaptation_cycles", "cycles")
        .counter("intervals", "intervals", "sampling intervals, all WPUs")
        .counter("reconfigurations", "events", "merges and splits of warp-slices")
        .counter("reconfiguration_stall_cycles", "cycles", "pipeline stalls they cost")
        .counter("memory_splits", "events", "DWS: a warp-slice's hits ran ahead of its misses")
        .counter("branch_splits", "events", "DWS: both paths of a divergent branch ran interleaved")
        .counter("joins", "events", "DWS: two splits joined again")
        .list("per_wpu", wpu_row_decl(), "per WPU (SM), with its intervals");
    return d;
  }();
  return decl;
}

stats::Group wpu_row(const WpuStats& s) {
  stats::Group row(*wpu_row_decl());
  row.set("width", uint64_t{s.width});
  row.set("depth", uint64_t{s.depth});
  row.set("fallback", uint64_t{s.fallback});
  row.set("dws", uint64_t{s.dws_chosen});
  row.set("tasks", s.tasks);
  row.set("cycles", s.cycles);
  row.set("adaptation_cycles", s.adaptation_cycles);
  for (const WpuInterval& i : s.intervals) {
    stats::Group& r = row.add_list_row("intervals");
    r.set("start_cycle", i.start_cycle);
    r.set("cycles", i.cycles);
    r.set("tasks", i.tasks);
    r.set("width", uint64_t{i.width});
    r.set("depth", uint64_t{i.depth});
    r.set("cpt", i.tasks ? double(i.cycles) / double(i.tasks) : 0.0);
    r.set("phase", std::string(!i.adapting ? "tail" : i.dws ? "dws_trial" : "adapt"));
  }
  return row;
}

void add_wpu_totals(stats::Group& wpu, const WpuStats& s) {
  wpu.set("policy", s.policy);
  auto add = [&](const char* name, uint64_t v) { wpu.set(name, wpu.integer(name) + v); };
  add("tasks", s.tasks);
  add("cycles", s.cycles);
  add("adaptation_cycles", s.adaptation_cycles);
  add("intervals", s.intervals.size());
  add("reconfigurations", s.reconfigurations);
  add("reconfiguration_stall_cycles", s.stall_cycles);
  add("memory_splits", s.memory_splits);
  add("branch_splits", s.branch_splits);
  add("joins", s.joins);
  wpu.list("per_wpu").push_back(wpu_row(s));
}

}  // namespace simtlm::hw
