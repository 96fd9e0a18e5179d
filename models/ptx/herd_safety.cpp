// The herding safety analysis (herd_safety.hpp): vulnerable operations, their backward slices over the
// dependence graph (herd_dependence.hpp), and the loop rule (herd_loops.hpp) that lets a site feed a loop
// exit test while a bounded exit of that loop stays in force.
#include "models/ptx/herd_safety.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "models/ptx/call_link.hpp"
#include "models/ptx/herd_dependence.hpp"
#include "models/ptx/herd_loops.hpp"
#include "models/ptx/herd_relaxed.hpp"

namespace simtlm::ptx {
namespace {

using herd::DependenceGraph;
using herd::LoopInfo;

bool is_load_site(const Instr& in) {
  return in.op == Op::ld && in.space != Space::param;
}

bool has_register_address(const Instr& in) {
  return in.nsrc > 0 && in.src[0].kind == OperandKind::mem && in.src[0].reg != kNoReg;
}

// The linked callee whose code holds pc, or kNoTarget for the kernel's own code.
uint32_t region_of(const Function& kernel, uint32_t pc) {
  for (uint32_t i = 0; i < kernel.linked_callees.size(); ++i) {
    if (pc >= kernel.linked_callees[i].entry_pc && pc < kernel.linked_callees[i].end_pc) return i;
  }
  return kNoTarget;
}

// The linked callees a call may run (an indirect call: every function it may reach); empty for other
// instructions.
std::vector<uint32_t> called_regions(const Function& kernel, const Instr& in) {
  if (in.op != Op::call || in.call_site >= kernel.call_sites.size()) return {};
  return possible_callees(kernel, kernel.call_sites[in.call_site]);
}

// A call whose callee reaches, through further calls, the function making the call.
bool is_recursive_call(const Function& kernel, uint32_t pc) {
  const uint32_t caller = region_of(kernel, pc);
  std::vector<uint32_t> work = called_regions(kernel, kernel.code[pc]);
  if (caller == kNoTarget || work.empty()) return false;  // nothing calls the kernel back
  std::vector<uint8_t> seen(kernel.linked_callees.size(), 0);
  while (!work.empty()) {
    const uint32_t region = work.back();
    work.pop_back();
    if (region == caller) return true;
    if (seen[region]) continue;
    seen[region] = 1;
    const LinkedCallee& code = kernel.linked_callees[region];
    for (uint32_t at = code.entry_pc; at < code.end_pc; ++at) {
      for (uint32_t next : called_regions(kernel, kernel.code[at])) work.push_back(next);
    }
  }
  return false;
}

struct VulnerableOp {
  Vulnerability what;
  uint32_t operand_reg = kNoReg;  // the address or divisor register; kNoReg for loop conditions
  std::vector<uint32_t> seeds;    // what the vulnerable operand and the op's execution depend on
};

// Everything that decides whether pc runs and, when `operand_reg` is a register, its value.
std::vector<uint32_t> seeds_of(const DependenceGraph& graph, uint32_t pc, uint32_t operand_reg) {
  std::vector<uint32_t> seeds;
  const Instr& in = graph.kernel().code[pc];
  for (uint32_t reg : {operand_reg, in.guard}) {
    if (reg == kNoReg) continue;
    if (const herd::RegRead* read = graph.read_of(pc, reg)) graph.add_value_sources(*read, seeds);
  }
  const auto& parents = graph.control_parents(pc);
  seeds.insert(seeds.end(), parents.begin(), parents.end());
  return seeds;
}

std::vector<VulnerableOp> vulnerable_ops(const DependenceGraph& graph, const LoopInfo& loops) {
  std::vector<VulnerableOp> out;
  const auto& code = graph.kernel().code;
  for (uint32_t pc = 0; pc < code.size(); ++pc) {
    const Instr& in = code[pc];
    if (in.op == Op::tex) continue;  // never vulnerable: tex clamps its coordinates and cannot fault
    auto add = [&](VulnerableKind kind, uint32_t reg) {
      out.push_back(VulnerableOp{Vulnerability{kind, pc}, reg, seeds_of(graph, pc, reg)});
    };
    // A fixed address (a symbol plus a constant) cannot move, so only register-based addresses count.
    if (in.space != Space::param && has_register_address(in)) {
      if (in.op == Op::ld) add(VulnerableKind::load_address, in.src[0].reg);
      if (in.op == Op::st) add(VulnerableKind::store_address, in.src[0].reg);
      if (in.op == Op::atom || in.op == Op::red) add(VulnerableKind::atomic_address, in.src[0].reg);
    }
    if ((in.op == Op::div || in.op == Op::rem) && !type_is_float(in.type) &&
        in.src[1].kind == OperandKind::reg)
      add(VulnerableKind::divisor, in.src[1].reg);
    if (graph.is_decision(pc) && (!loops.controlled_by(pc).empty() || loops.in_irreducible_cycle(pc)))
      add(VulnerableKind::loop_condition, kNoReg);
    // A recursive call is a loop through the call stack: what decides it risks unbounded recursion.
    if (in.op == Op::call && is_recursive_call(graph.kernel(), pc))
      add(VulnerableKind::loop_condition, kNoReg);
  }
  return out;
}

// Whether a site that reaches the loop exit test at `exit_pc` leaves every loop that test decides bounded.
struct Rescue {
  bool ok = false;
  std::vector<uint32_t> requires_unherded;  // non-uniform bounded exits relied on
  std::vector<uint32_t> uniform_tests;      // setps of uniform bounded exits relied on
};

Rescue rescue(const LoopInfo& loops, uint32_t exit_pc, uint32_t site) {
  Rescue result;
  if (loops.in_irreducible_cycle(exit_pc)) return result;
  const std::vector<uint32_t> controlled = loops.controlled_by(exit_pc);
  if (controlled.empty()) return result;
  for (uint32_t l : controlled) {
    const herd::BoundedExit* chosen = nullptr;
    for (const herd::BoundedExit& exit : loops.bounded_exits(l)) {
      if (exit.influencers[site]) continue;  // the site could move the bound or the counter's start
      if (exit.uniform) {
        chosen = &exit;
        break;
      }
      if (exit.branch == site) continue;  // herding the site would herd this exit too
      if (!chosen) chosen = &exit;
    }
    if (!chosen) return result;
    if (chosen->uniform) {
      result.uniform_tests.push_back(chosen->test);
    } else {
      result.requires_unherded.push_back(chosen->branch);
    }
  }
  result.ok = true;
  return result;
}

void sort_unique(std::vector<uint32_t>& values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
}

void sort_unique(std::vector<Vulnerability>& values) {
  std::sort(values.begin(), values.end(), [](const Vulnerability& a, const Vulnerability& b) {
    return a.pc != b.pc ? a.pc < b.pc : a.kind < b.kind;
  });
  values.erase(std::unique(values.begin(), values.end()), values.end());
}

std::string pc_list(const std::vector<uint32_t>& pcs) {
  std::ostringstream out;
  out << (pcs.size() == 1 ? "PC " : "PCs ");
  for (size_t i = 0; i < pcs.size(); ++i) out << (i ? ", " : "") << pcs[i];
  return out.str();
}

// What the analysis learnt about one site while walking the slices.
struct SiteState {
  HerdSiteVerdict verdict;
  bool is_branch = false;
  std::vector<uint32_t> uniform_tests;
  std::vector<uint32_t> rescued_exits;  // loop exit tests the site reaches that stay bounded
};

std::string loop_exit_note(const SiteState& site, bool own_loop_reason) {
  const HerdSiteVerdict& v = site.verdict;
  if (own_loop_reason) return "loop exit; no other bounded exit of its loop stays unherded";
  if (!v.requires_unherded.empty()) {
    return v.requires_unherded.size() == 1
               ? "loop exit; another bounded exit (PC " + std::to_string(v.requires_unherded[0]) +
                     ") stays unherded"
               : "loop exit; other bounded exits (" + pc_list(v.requires_unherded) + ") stay unherded";
  }
  return "loop exit; bounded by a counter test the same in every lane (setp at " +
         pc_list(site.uniform_tests) + ")";
}

std::string other_site_note(const SiteState& site) {
  const HerdSiteVerdict& v = site.verdict;
  std::string note =
      site.rescued_exits.size() == 1 ? "reaches the loop exit test at " : "reaches the loop exit tests at ";
  note += pc_list(site.rescued_exits);
  note += "; ";
  if (!v.requires_unherded.empty())
    return note + "bounded while " + pc_list(v.requires_unherded) +
           (v.requires_unherded.size() == 1 ? " stays unherded" : " stay unherded");
  return note + "bounded by a counter test the same in every lane (setp at " + pc_list(site.uniform_tests) +
         ")";
}

std::string op_text(const Instr& in) {
  std::string text = op_name(in.op);
  if (in.op == Op::div || in.op == Op::rem) {
    text += '.';
    text += type_name(in.type);
  } else if (in.space != Space::none && in.space != Space::generic) {
    text += '.';
    text += space_name(in.space);
  }
  return text;
}

const HerdSiteVerdict* find_at(const std::vector<HerdSiteVerdict>& sites, uint32_t pc) {
  auto it = std::lower_bound(sites.begin(), sites.end(), pc,
                             [](const HerdSiteVerdict& v, uint32_t value) { return v.pc < value; });
  return it != sites.end() && it->pc == pc ? &*it : nullptr;
}

}  // namespace

const char* vulnerable_kind_name(VulnerableKind kind) {
  switch (kind) {
    case VulnerableKind::load_address:
      return "load_address";
    case VulnerableKind::store_address:
      return "store_address";
    case VulnerableKind::atomic_address:
      return "atomic_address";
    case VulnerableKind::divisor:
      return "divisor";
    case VulnerableKind::loop_condition:
      return "loop_condition";
  }
  return "?";
}

bool HerdSiteVerdict::requires_unherded_branch(uint32_t branch_pc) const {
  return std::binary_search(requires_unherded.begin(), requires_unherded.end(), branch_pc);
}

const HerdSiteVerdict* HerdSafety::branch_at(uint32_t pc) const {
  return find_at(branches, pc);
}

const HerdSiteVerdict* HerdSafety::load_at(uint32_t pc) const {
  return find_at(loads, pc);
}

HerdSafety analyze_herd_safety(const Module& module, const Function& kernel, HerdSafetyRule rule) {
  HerdSafety result;
  if (kernel.code.empty()) return result;
  const DependenceGraph graph(module, kernel);
  const LoopInfo loops(graph);
  herd::RelaxedRule relaxed(graph);

  std::map<uint32_t, SiteState> sites;
  for (uint32_t pc = 0; pc < kernel.code.size(); ++pc) {
    const bool branch = graph.cfg().is_conditional_branch(pc);
    if (!branch && !is_load_site(kernel.code[pc])) continue;
    SiteState& site = sites[pc];
    site.verdict.pc = pc;
    site.is_branch = branch;
  }

  for (const VulnerableOp& op : vulnerable_ops(graph, loops)) {
    const std::vector<uint8_t> slice = herd::backward_slice(graph, op.seeds);
    for (auto& [pc, site] : sites) {
      if (!slice[pc]) continue;
      if (op.what.kind == VulnerableKind::loop_condition) {
        Rescue saved = rescue(loops, op.what.pc, pc);
        if (saved.ok) {
          auto& needs = site.verdict.requires_unherded;
          needs.insert(needs.end(), saved.requires_unherded.begin(), saved.requires_unherded.end());
          site.uniform_tests.insert(site.uniform_tests.end(), saved.uniform_tests.begin(),
                                    saved.uniform_tests.end());
          site.rescued_exits.push_back(op.what.pc);
          continue;
        }
      } else if (rule == HerdSafetyRule::relaxed && relaxed.admits(pc, op.what.pc, op.operand_reg)) {
        site.verdict.only_skipped.push_back(op.what);
        continue;
      }
      site.verdict.reasons.push_back(op.what);
    }
  }

  for (auto& [pc, site] : sites) {
    HerdSiteVerdict& v = site.verdict;
    sort_unique(v.reasons);
    sort_unique(v.only_skipped);
    v.safe = v.reasons.empty();
    sort_unique(v.requires_unherded);
    sort_unique(site.uniform_tests);
    sort_unique(site.rescued_exits);
    if (!v.safe) v.requires_unherded.clear();  // nothing to keep unherded for a site that stays unherded
    const bool loop_exit =
        site.is_branch && (!loops.controlled_by(pc).empty() || loops.in_irreducible_cycle(pc));
    const bool own_loop_reason =
        std::find(v.reasons.begin(), v.reasons.end(), Vulnerability{VulnerableKind::loop_condition, pc}) !=
        v.reasons.end();
    if (loop_exit && (own_loop_reason || !site.rescued_exits.empty())) {
      v.note = loop_exit_note(site, own_loop_reason);
    } else if (v.safe && !site.rescued_exits.empty()) {
      v.note = other_site_note(site);
    }
    if (v.safe && !v.only_skipped.empty()) {
      std::vector<uint32_t> pcs;
      for (const Vulnerability& skipped : v.only_skipped) pcs.push_back(skipped.pc);
      sort_unique(pcs);
      v.note += (v.note.empty() ? "" : "; ") + std::string("relaxed: herding only skips or adds ") +
                pc_list(pcs) + ", whose operands no test on their path checks";
    }
    (site.is_branch ? result.branches : result.loads).push_back(std::move(v));
  }
  return result;
}

std::string describe_location(const Module& module, const Function& kernel, uint32_t pc) {
  if (pc >= kernel.code.size()) return "PC " + std::to_string(pc);
  const Instr& in = kernel.code[pc];
  std::string text = "PTX line " + std::to_string(in.line);
  if (in.loc_file != 0 && in.loc_file < module.files.size()) {
    text += ", ";
    text += module.files[in.loc_file];
    text += ':';
    text += std::to_string(in.loc_line);
  }
  return text;
}

std::string describe_verdict(const HerdSiteVerdict& verdict, const Module& module, const Function& kernel) {
  if (verdict.safe) return verdict.note.empty() ? std::string("safe") : "safe (" + verdict.note + ")";
  std::ostringstream out;
  for (size_t i = 0; i < verdict.reasons.size(); ++i) {
    const Vulnerability& reason = verdict.reasons[i];
    const std::string op = reason.pc < kernel.code.size() ? op_text(kernel.code[reason.pc]) : "?";
    const std::string where =
        " at PC " + std::to_string(reason.pc) + " (" + describe_location(module, kernel, reason.pc) + ")";
    if (i) out << '\n';
    out << "unsafe: ";
    switch (reason.kind) {
      case VulnerableKind::load_address:
      case VulnerableKind::store_address:
      case VulnerableKind::atomic_address:
        out << "the address of " << op << where << " depends on it";
        break;
      case VulnerableKind::divisor:
        out << "the divisor of " << op << where << " depends on it";
        break;
      case VulnerableKind::loop_condition:
        if (reason.pc < kernel.code.size() && kernel.code[reason.pc].op == Op::call) {
          out << "whether the recursive " << op << where << " runs depends on it";
        } else {
          out << "the loop exit test of " << op << where
              << " depends on it and no bounded exit of its loop stays in force";
        }
        break;
    }
  }
  return out.str();
}

}  // namespace simtlm::ptx
