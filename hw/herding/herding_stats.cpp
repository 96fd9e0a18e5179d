#include "hw/herding/herding_stats.hpp"

namespace simtlm::hw {

using stats::GroupDecl;
using stats::Type;

namespace {

// What a branch site and the totals over them count.
GroupDecl& branch_counts(GroupDecl& d) {
  return d.counter("executions", "executions", "warp executions of the branch, herding on or off")
      .counter("divergent", "executions", "of those, the ones whose guard split the active lanes")
      .counter("herded", "executions", "of those, the ones herding overrode")
      .counter("lanes_forced", "lanes", "lanes sent the way their own guard did not choose");
}

GroupDecl& load_counts(GroupDecl& d) {
  return d.counter("executions", "executions", "warp executions of a load data herding may touch")
      .counter("herded", "executions", "of those, the ones where lanes were moved into the popular block")
      .counter("lanes_rewritten", "lanes", "lanes moved")
      .counter("requests_before", "requests", "distinct blocks the active lanes asked for (no herding)")
      .counter("requests_after", "requests", "distinct blocks read (one per herded execution)")
      .counter("bytes_before", "bytes", "`requests_before × herding.block_bytes`")
      .counter("bytes_after", "bytes", "`requests_after × herding.block_bytes`");
}

std::shared_ptr<const GroupDecl> site_row(bool branch) {
  auto d = std::make_shared<GroupDecl>(
      "", branch ? "one conditional branch that executed" : "one global load that executed");
  d->label("pc", Type::integer, "instruction index in the kernel")
      .label(
          "site", Type::text,
          "`PC n (PTX line l, file.cu:line)`: where the instruction is (the CUDA line only with line info)");
  if (branch) {
    d->label("herd", Type::boolean, "whether the plan herds this branch");
    branch_counts(*d);
  } else {
    load_counts(*d);
  }
  return d;
}

}  // namespace

const GroupDecl& herding_stats_decl() {
  static const GroupDecl decl = [] {
    GroupDecl d("herding", "branch and data herding (docs/herding.md); present only when herding ran");
    d.label("spec", Type::text, "the herding section in effect, as YAML (launch file and --herd-* options)")
        .label("max_instances", Type::integer, "the budget of herding instances (0: none)")
        .counter("instances", "instances", "herded branch and load executions, against max_instances")
        .label("switched_off", Type::boolean, "the budget ran out and herding stopped");
    GroupDecl latency("load_latency", "with data herding: what a herded load costs");
    latency.label("cycles", Type::integer, "cycles a herded load adds")
        .label("source", Type::text,
               "`launch` (the spec's load_cycles) or `selector` (the popular-block selector's latency)")
        .label("selector_rounds", Type::integer, "lsu.herding_selector_rounds of the machine");
    d.group(std::move(latency)).when_present();
    auto kernel = std::make_shared<GroupDecl>("KERNEL", "one kernel that ran");
    kernel->list("branches", site_row(true), "its conditional branches that executed, by PC")
        .list("loads", site_row(false), "its global loads that executed, by PC")
        .label("skipped", Type::text_list, "sites `all` left out, each with the analysis's reason");
    d.table("kernels", kernel, "per kernel, keyed by its name");
    GroupDecl branches("branches", "the branch sites' counts summed");
    d.group(branch_counts(branches));
    GroupDecl loads("loads", "the load sites' counts summed");
    d.group(load_counts(loads));
    return d;
  }();
  return decl;
}

}  // namespace simtlm::hw
