#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "hw/sc/gpu.hpp"
#include "models/launch/stats_json.hpp"

namespace simtlm::hw {

namespace {

// Sums the numbers of several statistics objects of one kind; maxima stay maxima and averages are weighted
// by the requests behind them.
nlohmann::json sum_stats(const std::vector<nlohmann::json>& parts) {
  nlohmann::json total = nlohmann::json::object();
  double weight_sum = 0;
  std::map<std::string, double> weighted;
  for (const nlohmann::json& part : parts) {
    const double weight = part.value("reads", 0.0) + part.value("writes", 0.0);
    weight_sum += weight;
    for (const auto& [key, value] : part.items()) {
      if (!value.is_number()) continue;
      if (key.find("avg") != std::string::npos) {
        weighted[key] += value.get<double>() * weight;
      } else if (key.find("max") != std::string::npos) {
        total[key] = total.contains(key) ? std::max(total[key].get<double>(), value.get<double>())
                                         : value.get<double>();
      } else if (value.is_number_integer()) {
        total[key] = total.value(key, uint64_t{0}) + value.get<uint64_t>();
      } else {
        total[key] = total.value(key, 0.0) + value.get<double>();
      }
    }
  }
  for (const auto& [key, sum] : weighted) total[key] = weight_sum > 0 ? sum / weight_sum : 0.0;
  return total;
}

}  // namespace

CompactionStats& CompactionStats::operator+=(const CompactionStats& o) {
  cta_branches += o.cta_branches;
  divergent += o.divergent;
  paths += o.paths;
  compacted += o.compacted;
  warps_no_tbc += o.warps_no_tbc;
  warps_formed += o.warps_formed;
  warps_ideal += o.warps_ideal;
  formations += o.formations;
  formed_warps += o.formed_warps;
  p_paths += o.p_paths;
  p_compacted += o.p_compacted;
  d_paths += o.d_paths;
  d_compacted += o.d_compacted;
  capri_skipped += o.capri_skipped;
  capri_unblocked += o.capri_unblocked;
  return *this;
}

SmStats& SmStats::operator+=(const SmStats& o) {
  warp_instructions += o.warp_instructions;
  thread_instructions += o.thread_instructions;
  lane_slots += o.lane_slots;
  ctas += o.ctas;
  max_resident_ctas = std::max(max_resident_ctas, o.max_resident_ctas);
  warps += o.warps;
  barriers += o.barriers;
  branches += o.branches;
  divergent_branches += o.divergent_branches;
  for (size_t i = 0; i < kStallKinds; ++i) stalls[i] += o.stalls[i];
  global_instructions += o.global_instructions;
  global_requests += o.global_requests;
  local_instructions += o.local_instructions;
  local_requests += o.local_requests;
  shared_instructions += o.shared_instructions;
  shared_conflict_cycles += o.shared_conflict_cycles;
  other_memory_instructions += o.other_memory_instructions;
  atomics += o.atomics;
  spill_requests += o.spill_requests;
  fill_requests += o.fill_requests;
  divergence += o.divergence;
  per_branch.resize(std::max(per_branch.size(), o.per_branch.size()));
  for (size_t pc = 0; pc < o.per_branch.size(); ++pc) {
    per_branch[pc].executed += o.per_branch[pc].executed;
    per_branch[pc].divergent += o.per_branch[pc].divergent;
  }
  return *this;
}

nlohmann::json Gpu::stats_json() const {
  SmStats total;
  total.per_branch.resize(k_.fn.code.size());
  nlohmann::json per_sm = nlohmann::json::array();
  std::vector<nlohmann::json> lsu;
  for (const auto& sm : sms_) {
    lsu.push_back(sm->lsu().stats_json());
    const SmStats& s = sm->stats();
    total += s;
    nlohmann::json stalls = nlohmann::json::object();
    for (size_t i = 0; i < kStallKinds; ++i) stalls[stall_name(static_cast<Stall>(i))] = s.stalls[i];
    per_sm.push_back({{"ctas", s.ctas},
                      {"max_resident_ctas", s.max_resident_ctas},
                      {"warp_instructions", s.warp_instructions},
                      {"thread_instructions", s.thread_instructions},
                      {"issue_cycles", s.issue_cycles},
                      {"active_cycles", s.active_cycles},
                      {"finish_cycle", s.finish_cycle},
                      {"stalls", stalls}});
  }
  nlohmann::json stalls = nlohmann::json::object();
  for (size_t i = 0; i < kStallKinds; ++i) stalls[stall_name(static_cast<Stall>(i))] = total.stalls[i];
  nlohmann::json per_branch = nlohmann::json::object();
  for (uint32_t pc = 0; pc < total.per_branch.size(); ++pc) {
    const BranchCounts& b = total.per_branch[pc];
    if (!b.executed) continue;
    per_branch[std::to_string(pc)] = launch::branch_json(k_.module, k_.fn, pc, b.executed, b.divergent);
  }
  auto ratio = [](uint64_t a, uint64_t b) { return b ? double(a) / double(b) : 0.0; };
  std::vector<nlohmann::json> l1, l2, dram;
  for (const auto& c : l1_) l1.push_back(c->stats_json());
  for (const auto& c : l2_) l2.push_back(c->stats_json());
  for (const auto& d : dram_) dram.push_back(d->stats_json());
  nlohmann::json l1_doc = sum_stats(l1);
  l1_doc["per_sm"] = l1;
  nlohmann::json l2_doc = sum_stats(l2);
  l2_doc["per_bank"] = l2;
  nlohmann::json lsu_doc = sum_stats(lsu);
  lsu_doc["per_sm"] = lsu;
  nlohmann::json dram_doc = sum_stats(dram);
  dram_doc["per_channel"] = dram;
  const uint64_t memory_instructions = total.global_instructions + total.local_instructions;
  const nlohmann::json write_back = {
      {"l1_requests", l1_doc.value("flush_writebacks", uint64_t{0})},
      {"requests", l2_doc.value("flush_writebacks", uint64_t{0})},
      {"bytes", l2_doc.value("flush_bytes", uint64_t{0})},
      {"end_cycle", std::max(write_back_end_cycle_, end_cycle_)},
      {"cycles", write_back_end_cycle_ > end_cycle_ ? write_back_end_cycle_ - end_cycle_ : 0}};
  return {
      {"mode", "timing"},
      {"cycles", end_cycle_},
      {"ipc", ratio(total.warp_instructions, end_cycle_)},
      {"thread_ipc", ratio(total.thread_instructions, end_cycle_)},
      {"warp_instructions", total.warp_instructions},
      {"thread_instructions", total.thread_instructions},
      {"simd_utilization", ratio(total.thread_instructions, total.lane_slots)},
      {"ctas", total.ctas},
      {"max_resident_ctas_per_sm", total.max_resident_ctas},
      {"warps", total.warps},
      {"barriers", total.barriers},
      {"branches", total.branches},
      {"divergent_branches", total.divergent_branches},
      {"divergent_fraction", ratio(total.divergent_branches, total.branches)},
      {"per_branch", per_branch},
      {"stalls", stalls},
      {"stack",
       {{"pushes", total.divergence.stack.pushes},
        {"sync_pushes", total.divergence.stack.sync_pushes},
        {"pops", total.divergence.stack.pops},
        {"max_depth", total.divergence.stack.max_depth},
        {"spills", total.divergence.stack.spills},
        {"fills", total.divergence.stack.fills},
        {"cycles", total.divergence.stack.cycles},
        // What the cycles were spent on: each event count times its cost (StackParams::timing).
        {"cycles_divergent_branch", total.divergence.stack.divergent_branches * p_.sm.stack.timing.divergent_branch},
        {"cycles_pop", total.divergence.stack.pops * p_.sm.stack.timing.pop},
        {"cycles_spill", total.divergence.stack.spills * p_.sm.stack.timing.spill},
        {"cycles_fill", total.divergence.stack.fills * p_.sm.stack.timing.fill},
        {"spill_requests", total.spill_requests},
        {"fill_requests", total.fill_requests}}},
      {"memory",
       {{"global_instructions", total.global_instructions},
        {"global_requests", total.global_requests},
        {"local_instructions", total.local_instructions},
        {"local_requests", total.local_requests},
        {"requests_per_memory_instruction",
         ratio(total.global_requests + total.local_requests, memory_instructions)},
        {"shared_instructions", total.shared_instructions},
        {"shared_conflict_cycles", total.shared_conflict_cycles},
        {"constant_and_param_instructions", total.other_memory_instructions},
        {"atomics", total.atomics}}},
      {"compaction",
       {{"mechanism", std::string(compaction_name(p_.sm.compaction))},
        {"capri_skipped", total.divergence.compaction.capri_skipped},
        {"capri_unblocked", total.divergence.compaction.capri_unblocked},
        {"permutation", std::string(permutation_name(p_.sm.permutation))},
        {"cta_branches", total.divergence.compaction.cta_branches},
        {"divergent_cta_branches", total.divergence.compaction.divergent},
        {"paths", total.divergence.compaction.paths},
        {"compacted_paths", total.divergence.compaction.compacted},
        {"compaction_rate", ratio(total.divergence.compaction.compacted, total.divergence.compaction.paths)},
        {"p_paths", total.divergence.compaction.p_paths},
        {"p_compacted", total.divergence.compaction.p_compacted},
        {"d_paths", total.divergence.compaction.d_paths},
        {"d_compacted", total.divergence.compaction.d_compacted},
        {"warps_no_tbc", total.divergence.compaction.warps_no_tbc},
        {"warps_formed", total.divergence.compaction.warps_formed},
        {"warps_ideal", total.divergence.compaction.warps_ideal},
        {"formations", total.divergence.compaction.formations},
        {"formed_warps", total.divergence.compaction.formed_warps}}},
      {"write_back", write_back},
      {"lsu", lsu_doc},
      {"l1", l1_doc},
      {"interconnect", xbar_.stats_json()},
      {"l2", l2_doc},
      {"dram", dram_doc},
      {"sms", per_sm},
  };
}

}  // namespace simtlm::hw
