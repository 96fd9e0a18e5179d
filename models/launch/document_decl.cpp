#include "models/launch/document_decl.hpp"

namespace simtlm::launch {

using stats::GroupDecl;
using stats::Type;

GroupDecl& declare_launch(GroupDecl& d) {
  return d
      .label("kernel", Type::text,
             "PTX entry name of the kernel that ran (mangled when the source was C++); a sequence's: the "
             "kernels launched, in order of first launch, comma-separated")
      .label("launch", Type::text, "file name of the launch file")
      .label("grid", Type::dim3, "CTAs per dimension (null for a sequence: per launch in `launches[]`)")
      .label("block", Type::dim3, "threads per CTA per dimension (null for a sequence)")
      .label("shared_bytes", Type::integer, "dynamic shared memory per CTA, bytes (null for a sequence)");
}

std::shared_ptr<const GroupDecl> branch_row_decl() {
  static const auto decl = [] {
    auto d = std::make_shared<GroupDecl>("PC", "one conditional branch");
    d->counter("executed", "executions", "warp-level executions of this branch")
        .counter("divergent", "executions", "of those, the divergent ones")
        .label("ptx_line", Type::integer, "line of the branch in the PTX file")
        .label("cuda", Type::text_or_null,
               "`file.cu:line` from the PTX `.loc` before the branch (file name only), null without line "
               "info");
    return std::shared_ptr<const GroupDecl>(d);
  }();
  return decl;
}

const GroupDecl& functional_stats_decl() {
  static const GroupDecl decl = [] {
    GroupDecl d("functional", "the functional runner's statistics of one launch");
    declare_launch(d)
        .counter("warp_instructions", "instructions",
                 "issued warp instructions (at least one lane in the mask)")
        .counter("thread_instructions", "instructions",
                 "sum over issued warp instructions of the active lanes (guard-false lanes count)")
        .counter("active_lanes", "lanes", "the same sum, as the runner counts it for the utilization")
        .hidden()
        .formula("simd_utilization", "",
                 "`thread_instructions / (warp_instructions × 32)`, 0 when nothing was issued",
                 [](const stats::Group& g) -> stats::Value {
                   const uint64_t warp = g.integer("warp_instructions");
                   return warp ? double(g.integer("active_lanes")) / (double(warp) * 32) : 0.0;
                 })
        .counter("branches", "executions",
                 "warp-level executions of conditional (guarded, non-`.uni`) branches")
        .counter("divergent_branches", "executions",
                 "of those, executions where some active lanes took the branch and some did not")
        .ratio("divergent_fraction", "`divergent_branches / branches`, 0 when there were no branches",
               "divergent_branches", "branches")
        .table("per_branch", branch_row_decl(),
               "one entry per conditional branch that executed, keyed by its PC (instruction index, as a "
               "string); a sequence's is keyed `KERNEL:PC`, counts summed over that kernel's launches")
        .counter("barriers", "barriers", "CTA-wide barrier completions")
        .maximum("max_stack_depth", "entries", "deepest reconvergence stack of any warp")
        .counter("ctas", "CTAs", "CTAs run")
        .counter("warps", "warps", "warps run");
    GroupDecl host("host", "facts about the host run; not deterministic, excluded from comparisons");
    host.real_counter("wall_seconds", "seconds",
                      "wall-clock seconds of the grid's execution (not loading or checking)");
    d.group(std::move(host));
    return d;
  }();
  return decl;
}

const GroupDecl& diagnostics_decl() {
  static const GroupDecl decl = [] {
    GroupDecl d("diagnostics", "warnings and out-of-bounds counts");
    d.label(
        "warnings", Type::text_list,
        "e.g. a kernel reading a `__constant__` variable that nothing initialised (`docs/launch-files.md`); "
        "present for sequences always, for single launches only when there is a warning");
    GroupDecl oob("out_of_bounds", "only with `out_of_bounds: warn`: accesses outside every buffer");
    oob.label("mode", Type::text, "`warn`")
        .counter("loads", "accesses", "loads outside every buffer (they read zeros)")
        .counter("stores", "accesses", "stores outside every buffer (they are dropped)")
        .label("first", Type::text_list, "the first 8 such accesses with kernel, CTA, thread and PC");
    d.group(std::move(oob)).when_present();
    return d;
  }();
  return decl;
}

const GroupDecl& sequence_decl() {
  static const GroupDecl decl = [] {
    GroupDecl d("sequence", "a launch file with `launches:`");
    auto entry = std::make_shared<GroupDecl>("", "one launch");
    entry->label("step", Type::integer, "k: the launch's index in run order")
        .label("kernel", Type::text, "the kernel launched")
        .label("line", Type::integer, "line of the step in the launch file")
        .label("iteration", Type::integer, "`i` of the step's loop")
        .label("grid", Type::dim3, "CTAs per dimension")
        .label("block", Type::dim3, "threads per CTA per dimension")
        .label("shared_bytes", Type::integer, "dynamic shared memory per CTA, bytes")
        .label(
            "start_cycle", Type::integer,
            "timing only: the cycle the launch began (0, then the end of the previous launch's write-back)");
    d.counter("launch_count", "launches", "kernel launches run")
        .list("launches", entry,
              "launch k in run order: the keys below, then that launch's statistics with the single-launch "
              "keys (functional: `warp_instructions` … `warps`; timing: `cycles` … `sms`)");
    return d;
  }();
  return decl;
}

}  // namespace simtlm::launch
