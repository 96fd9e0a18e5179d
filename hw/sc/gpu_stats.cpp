#include "hw/sc/gpu_stats.hpp"

#include <algorithm>

#include "hw/sc/gpu.hpp"
#include "models/launch/document_decl.hpp"
#include "models/launch/stats_json.hpp"

namespace simtlm::hw {

using stats::Group;
using stats::GroupDecl;
using stats::Kind;
using stats::Type;

namespace {

double ratio(uint64_t a, uint64_t b) {
  return b ? double(a) / double(b) : 0.0;
}

GroupDecl stack_decl() {
  GroupDecl d("stack", "reconvergence stacks (docs/simt-stack.md)");
  stats::declare(d, stack_counter_fields());
  // What the cycles were spent on: each event count times its cost (StackParams::timing).
  for (const char* event : {"divergent_branch", "pop", "spill", "fill"})
    d.counter(std::string("cycles_") + event, "cycles",
              std::string("cycles charged for ") + event + " events: event count × its cost");
  stats::declare(d, sm_stack_fields());
  return d;
}

GroupDecl memory_decl() {
  GroupDecl d("memory", "the SMs' memory instructions");
  stats::declare(d, sm_memory_fields());
  d.formula("requests_per_memory_instruction", "requests",
            "(global + local requests) / (global + local instructions)", [](const Group& g) -> stats::Value {
              return ratio(g.integer("global_requests") + g.integer("local_requests"),
                           g.integer("global_instructions") + g.integer("local_instructions"));
            });
  return d;
}

GroupDecl compaction_decl() {
  GroupDecl d("compaction", "thread block compaction and CAPRI at CTA-wide divergent branches");
  d.label("mechanism", Type::text, "`none`, `tbc`, `ideal` or `capri`")
      .label("permutation", Type::text, "the lane permutation");
  stats::declare(d, compaction_counter_fields());
  d.ratio("compaction_rate", "`compacted_paths / paths`", "compacted_paths", "paths");
  d.ratio("capri_accuracy", "`capri_correct / capri_outcomes`: CAPRI's prediction accuracy", "capri_correct",
          "capri_outcomes");
  return d;
}

GroupDecl write_back_decl() {
  GroupDecl d("write_back", "the kernel-end write-back (docs/memory-system.md, *Kernel end*)");
  d.counter("l1_requests", "requests",
            "writes write-back L1s sent to the L2 at the kernel's end (0 with write-through L1s)")
      .counter(
          "requests", "requests",
          "writes the L2 banks sent to DRAM at the kernel's end, one per dirty line; lines stay valid and "
          "clean")
      .counter("bytes", "bytes", "their bytes")
      .maximum("end_cycle", "cycle", "cycle DRAM acknowledged the last of those writes")
      .counter("cycles", "cycles", "`end_cycle − cycles` (0 when nothing was dirty)");
  return d;
}

}  // namespace

const GroupDecl& timing_stats_decl() {
  static const GroupDecl decl = [] {
    GroupDecl d("timing", "the timing model's statistics of one launch (Gpu::statistics)");
    d.label("mode", Type::text, "`\"timing\"`")
        .maximum(
            "cycles", "cycles",
            "core cycles until the last CTA completed and every SM's memory requests (stores and atomics "
            "included) had their responses; the kernel-end write-back is not included (`write_back`)")
        .ratio("ipc", "`warp_instructions / cycles`, whole GPU", "warp_instructions", "cycles")
        .ratio("thread_ipc", "`thread_instructions / cycles`", "thread_instructions", "cycles");
    stats::declare(d, sm_core_fields());
    d.counter("lane_slots", "lanes", "issued warp instructions × passes × SIMD width")
        .hidden()
        .ratio("simd_utilization",
               "SLP paper's definition: active lanes over SIMD width, averaged over issued warp instructions "
               "with "
               "at least one active lane (`thread_instructions / (warp_instructions × passes × simd_width)`, "
               "passes = ceil(32 / simd_width))",
               "thread_instructions", "lane_slots")
        .ratio("divergent_fraction", "`divergent_branches / branches`, 0 when there were no branches",
               "divergent_branches", "branches")
        .table("per_branch", launch::branch_row_decl(),
               "one entry per conditional branch that executed, keyed by its PC (instruction index, as a "
               "string)")
        .vector(
            "stalls", Kind::counter, stall_names(), "cycles",
            "SM-cycles with resident warps and no issue, by reason, summed over SMs; `memory_backpressure`: "
            "the most pressing warp's next instruction is a memory one and the load/store unit is full "
            "(`docs/timing-model.md`, *Back-pressure*)")
        .group(stack_decl())
        .group(memory_decl())
        .group(compaction_decl())
        .group(write_back_decl());
    // Groups a divergence unit adds of its own (add_statistics).
    for (const GroupDecl* unit : divergence_stats_decls()) d.group(*unit);
    d.totals("lsu", stats::lasting(lsu_stats_decl()), "per_sm",
             "the SMs' load/store units: merged over SMs; `lsu.per_sm` lists each")
        .totals("l1", stats::lasting(mem::cache_stats_decl()), "per_sm",
                "the SMs' L1 caches merged (`docs/memory-system.md`); `l1.per_sm` lists each")
        .group(mem::crossbar_stats_decl())
        .totals("l2", stats::lasting(mem::cache_stats_decl()), "per_bank",
                "the L2 banks merged; `l2.per_bank` lists each")
        .totals("dram", stats::lasting(mem::dram_stats_decl()), "per_channel",
                "the DRAM channels merged; `dram.per_channel` lists each")
        .list("sms", stats::lasting(sm_row_stats_decl()), "per SM");
    return d;
  }();
  return decl;
}

stats::Group timing_stats_from_json(const nlohmann::json& stats) {
  return Group::from_json(timing_stats_decl(), stats);
}

namespace {

// One SM's share of the document's SM-wide statistics, to be merged with the others'.
Group sm_part(const SmStats& s, const StackTiming& cost) {
  Group part(timing_stats_decl());
  stats::fill(part, s, sm_core_fields());
  part.set("lane_slots", s.lane_slots);
  std::vector<stats::Value>& stalls = part.vector("stalls");
  for (size_t i = 0; i < kStallKinds; ++i) stalls[i] = s.stalls[i];
  for (uint32_t pc = 0; pc < s.per_branch.size(); ++pc) {
    const BranchCounts& b = s.per_branch[pc];
    if (!b.executed) continue;
    Group& row = part.row("per_branch", std::to_string(pc));
    row.set("executed", b.executed);
    row.set("divergent", b.divergent);
  }
  Group& stack = part.group("stack");
  const StackCounters& c = s.divergence.stack;
  stats::fill(stack, c, stack_counter_fields());
  stack.set("cycles_divergent_branch", c.divergent_branches * cost.divergent_branch);
  stack.set("cycles_pop", c.pops * cost.pop);
  stack.set("cycles_spill", c.spills * cost.spill);
  stack.set("cycles_fill", c.fills * cost.fill);
  stats::fill(stack, s, sm_stack_fields());
  stats::fill(part.group("memory"), s, sm_memory_fields());
  stats::fill(part.group("compaction"), s.divergence.compaction, compaction_counter_fields());
  return part;
}

}  // namespace

Group Gpu::statistics() const {
  Group doc(timing_stats_decl());
  for (const auto& sm : sms_) {
    doc.merge(sm_part(sm->stats(), p_.sm.divergence.stack.timing));
    doc.list("sms").push_back(sm_row_statistics(sm->stats()));
    doc.list("lsu").push_back(sm->lsu().statistics());
    sm->divergence().add_statistics(doc);
  }
  for (const auto& [pc, counts] : std::map<std::string, Group>(doc.table("per_branch"))) {
    const nlohmann::json where =
        launch::branch_json(k_.module, k_.fn, static_cast<uint32_t>(std::stoul(pc)), 0, 0);
    Group& row = doc.row("per_branch", pc);
    row.set("ptx_line", where["ptx_line"].get<uint64_t>());
    if (where["cuda"].is_string()) row.set("cuda", where["cuda"].get<std::string>());
  }
  doc.set("mode", "timing");
  doc.set("cycles", end_cycle_);
  Group& compaction = doc.group("compaction");
  compaction.set("mechanism", std::string(compaction_name(p_.sm.divergence.mechanism())));
  compaction.set("permutation", std::string(permutation_name(p_.sm.divergence.permutation)));
  for (const auto& c : memory_.l1s()) doc.list("l1").push_back(c->statistics());
  for (const auto& c : memory_.l2s()) doc.list("l2").push_back(c->statistics());
  for (const auto& d : memory_.dram_channels()) doc.list("dram").push_back(d->statistics());
  doc.group("interconnect") = memory_.crossbar().statistics();
  Group& write_back = doc.group("write_back");
  write_back.set("l1_requests", doc.total("l1").integer("flush_writebacks"));
  const Group l2 = doc.total("l2");
  write_back.set("requests", l2.integer("flush_writebacks"));
  write_back.set("bytes", l2.integer("flush_bytes"));
  write_back.set("end_cycle", std::max(write_back_end_cycle_, end_cycle_));
  write_back.set("cycles", write_back_end_cycle_ > end_cycle_ ? write_back_end_cycle_ - end_cycle_ : 0);
  return doc;
}

}  // namespace simtlm::hw
