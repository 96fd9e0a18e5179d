#include "studies/compaction_study.hpp"

#include <algorithm>
#include <bit>
#include <span>

#include "hw/compaction.hpp"
#include "hw/issue_info.hpp"
#include "models/launch/stats_json.hpp"
#include "models/ptx/cta_barriers.hpp"
#include "models/ptx/grid_rules.hpp"
#include "models/ptx/reconvergence.hpp"
#include "models/ptx/taint.hpp"

namespace simtlm::studies {

using namespace hw;  // the timing model this layer drives

namespace {

using ptx::LaneMask;

// One entry of the CTA-wide stack: the path's PC, where it reconverges, and its threads per CTA warp.
struct Entry {
  uint32_t pc = 0;
  uint32_t reconvergence_pc = ptx::kNoTarget;
  std::vector<LaneMask> mask;
  std::vector<uint32_t> warps;  // per mechanism, for `mask`; empty when it must be recomputed
};

class CtaWideRunner {
 public:
  CtaWideRunner(const launch::Session& session, launch::DeviceImage& image,
                const std::vector<NamedPermutation>& permutations, uint64_t seed, const StudyUnits* units,
                CompactionStudy& out)
      : launch_(image.context),
        fn_(session.kernel()),
        module_(session.module()),
        cfg_(fn_),
        info_(decode_issue_info(fn_, cfg_)),
        taint_(module_, fn_),
        executor_(launch_),
        budget_(session.instruction_budget()),
        units_(units),
        out_(out) {
    for (const StudyMechanism& m : study_mechanisms(permutations)) out_.mechanisms.push_back(m.label());
    for (NamedPermutation p : permutations) maps_.emplace_back(p, out_.width, seed);
    const size_t m = out_.mechanisms.size();
    out_.warp_instructions.assign(m, 0);
    out_.p_branches.assign(m, MechanismCounts{});
    out_.d_branches.assign(m, MechanismCounts{});
    threads_ = static_cast<uint32_t>(launch_.block.count());
    nwarps_ = (threads_ + ptx::kWarpSize - 1) / ptx::kWarpSize;
  }

  void run() {
    if (!fn_.linked_callees.empty())  // the CTA-wide stack has no call frames (docs/simt-stack.md, "Calls")
      throw ptx::KernelError("kernel " + fn_.name + " calls .func " +
                             module_.functions[fn_.linked_callees[0].function].name +
                             ": calls are not supported by the CTA-wide compaction study");
    const uint64_t ctas = launch_.grid.count();
    for (uint64_t id = 0; id < ctas; ++id) run_cta(id);
  }

 private:
  std::vector<uint32_t> warps_for(const std::vector<LaneMask>& masks) {
    std::vector<uint32_t> nw(out_.mechanisms.size());
    uint32_t active = 0, no_tbc = 0;
    wide_.assign(masks.begin(), masks.end());
    for (LaneMask m : masks) {
      active += static_cast<uint32_t>(std::popcount(m));
      no_tbc += m != 0;
    }
    nw[0] = no_tbc;
    nw[1] = (active + out_.width - 1) / out_.width;
    for (size_t i = 0; i < maps_.size(); ++i) {
      LanePermutation* unit = units_ && i < units_->permutation.size() ? units_->permutation[i] : nullptr;
      WarpCompaction* compactor = units_ && i < units_->compactor.size() ? units_->compactor[i] : nullptr;
      const LanePermutationMap& map = maps_[i];
      const HomeLaneFn home =
          unit ? HomeLaneFn([unit](uint32_t w, uint32_t l) { return unit->home_lane(w, l); })
               : HomeLaneFn([&map](uint32_t w, uint32_t l) { return map.home_lane(w, l); });
      nw[2 + i] = compact_path(std::span<const uint64_t>(wide_), out_.width, home, compactor).tbc_warps();
    }
    return nw;
  }

  const std::vector<uint32_t>& warps_of(Entry& e) {
    if (e.warps.empty()) e.warps = warps_for(e.mask);
    return e.warps;
  }

  void count_path(uint32_t pc, const std::vector<LaneMask>& masks, bool taken) {
    const std::vector<uint32_t> nw = warps_for(masks);
    uint64_t active = 0;
    for (LaneMask m : masks) active += static_cast<uint64_t>(std::popcount(m));
    if (out_.log_paths) {
      out_.paths.push_back(PathRecord{pc, cta_.linear_id, taken, static_cast<uint32_t>(active), nw});
    }
    const size_t bin = std::min<size_t>(kFractionBins - 1, active * kFractionBins / threads_);
    StaticBranchCompaction& b = branch(pc);
    auto& by_class = b.data_dependent ? out_.d_branches : out_.p_branches;
    for (size_t m = 0; m < nw.size(); ++m) {
      for (MechanismCounts* c : {&by_class[m], &b.by_mechanism[m]}) {
        ++c->paths;
        ++c->paths_by_fraction[bin];
        c->warps += nw[m];
        if (nw[m] < nw[0]) {
          ++c->compacted;
          ++c->compacted_by_fraction[bin];
        }
      }
    }
  }

  StaticBranchCompaction& branch(uint32_t pc) {
    auto [it, inserted] = out_.branches.try_emplace(pc);
    if (inserted) {
      it->second.data_dependent = taint_.at(pc).kind == ptx::BranchClass::kData;
      it->second.cuda = launch::cuda_location(module_, fn_.code[pc]);
      it->second.ptx_line = fn_.code[pc].line;
      it->second.by_mechanism.assign(out_.mechanisms.size(), MechanismCounts{});
    }
    return it->second;
  }

  std::string where(uint64_t cta, uint32_t pc) const {
    const ptx::Dim3& c = cta_.ctaid;
    return "kernel " + fn_.name + ", CTA (" + std::to_string(c.x) + "," + std::to_string(c.y) + "," +
           std::to_string(c.z) + "), " + describe_pc(module_, fn_, pc) + " (CTA " + std::to_string(cta) + ")";
  }

  void exit_threads(uint32_t w, LaneMask lanes) {
    if (!lanes) return;
    for (Entry& e : stack_) {
      if (e.mask[w] & lanes) e.warps.clear();
      e.mask[w] &= ~lanes;
    }
    barriers_.threads_exited(static_cast<uint64_t>(std::popcount(lanes)));
    barriers_.take_released();
  }

  void run_cta(uint64_t id) {
    cta_.linear_id = id;
    cta_.ctaid = ptx::cta_coordinates(launch_.grid, id);
    cta_.smid = 0;
    cta_.shared.assign(ptx::shared_layout(fn_, launch_.dynamic_shared_bytes).cta_bytes, 0);
    warps_.resize(nwarps_);
    Entry root;
    root.mask.resize(nwarps_);
    for (uint32_t w = 0; w < nwarps_; ++w) {
      executor_.init_warp(warps_[w], cta_, w);
      root.mask[w] = warps_[w].valid;
    }
    barriers_.reset(nwarps_, threads_);
    stack_.assign(1, root);
    const auto ncode = static_cast<uint32_t>(fn_.code.size());
    std::vector<LaneMask> taken(nwarps_), not_taken(nwarps_);
    while (!stack_.empty()) {
      Entry& e = stack_.back();
      const bool empty = std::all_of(e.mask.begin(), e.mask.end(), [](LaneMask m) { return m == 0; });
      if (empty || e.pc == e.reconvergence_pc) {
        stack_.pop_back();
        continue;
      }
      const uint32_t pc = e.pc;
      if (pc >= ncode) {  // fell off the end: an implicit exit
        for (uint32_t w = 0; w < nwarps_; ++w) exit_threads(w, stack_.back().mask[w]);
        continue;
      }
      const std::vector<uint32_t> nw = warps_of(e);
      const ptx::Instr& in = fn_.code[pc];
      bool any_taken = false, any_not_taken = false, waits = false;
      uint64_t active = 0;
      for (uint32_t w = 0; w < nwarps_; ++w) {
        const LaneMask mask = stack_.back().mask[w];
        taken[w] = not_taken[w] = 0;
        if (!mask) continue;
        active += static_cast<uint64_t>(std::popcount(mask));
        warps_[w].clock = out_.thread_instructions;
        const ptx::WarpStep step = executor_.execute(warps_[w], pc, mask);
        if (step.kind == ptx::StepKind::branch) {
          taken[w] = in.guard == ptx::kNoReg ? mask : (step.taken & mask);
          not_taken[w] = mask & ~taken[w];
          any_taken = any_taken || taken[w];
          any_not_taken = any_not_taken || not_taken[w];
        } else if (step.kind == ptx::StepKind::exit) {
          exit_threads(w, step.active & mask);
        } else if (step.kind == ptx::StepKind::barrier && step.active) {
          if (step.barrier_id >= ptx::CtaBarriers::kIds) {
            throw ptx::KernelError("barrier id " + std::to_string(step.barrier_id) + " out of range in " +
                                   where(id, pc));
          }
          waits = barriers_.arrive(w, warps_[w], in, pc, step) || waits;
        }
      }
      if (waits) {
        barriers_.take_released();
        bool still = false;
        for (uint32_t w = 0; w < nwarps_; ++w) still = still || barriers_.waiting(w);
        if (still) {
          throw ptx::KernelError(
              "compaction study: a barrier that only part of the CTA reaches on one CTA-wide "
              "path (the block-wide stack cannot run the other paths to it) in " +
              where(id, pc));
        }
      }
      out_.thread_instructions += active;
      for (size_t m = 0; m < nw.size(); ++m) out_.warp_instructions[m] += nw[m];
      if (out_.thread_instructions > budget_) {
        throw ptx::KernelError(ptx::budget_exceeded_message(budget_, where(id, pc)));
      }
      Entry& top = stack_.back();
      if (in.op != ptx::Op::bra) {
        top.pc = pc + 1;
        continue;
      }
      const IssueInfo& info = info_[pc];
      if (info.conditional) {
        StaticBranchCompaction& b = branch(pc);
        ++b.executed;
        if (any_taken && any_not_taken) {
          ++b.divergent;
          count_path(pc, taken, true);
          count_path(pc, not_taken, false);
        }
      }
      if (!any_taken || in.target == pc + 1) {
        top.pc = pc + 1;
        continue;
      }
      if (!any_not_taken) {
        top.pc = in.target;
        continue;
      }
      diverge(pc, in.target, info.reconvergence_pc, taken, not_taken);
    }
  }

  // The CTA-wide version of the post-dominator stack (as GPGPU-Sim's, per CTA; models/ptx/reconvergence.hpp).
  void diverge(uint32_t pc, uint32_t target, uint32_t r, const std::vector<LaneMask>& taken,
               const std::vector<LaneMask>& not_taken) {
    Entry top = stack_.back();
    stack_.pop_back();
    const ptx::DivergentPaths paths = ptx::divergent_paths(pc + 1, target, r, top.reconvergence_pc);
    if (paths.keep_waiting) stack_.push_back(Entry{r, top.reconvergence_pc, top.mask, top.warps});
    if (paths.push_not_taken) stack_.push_back(Entry{pc + 1, r, not_taken, {}});
    if (paths.push_taken) stack_.push_back(Entry{target, r, taken, {}});
  }

  const ptx::LaunchContext& launch_;
  const ptx::Function& fn_;
  const ptx::Module& module_;
  const ptx::Cfg cfg_;
  const std::vector<IssueInfo> info_;
  const ptx::TaintAnalysis taint_;
  const ptx::Executor executor_;
  const uint64_t budget_;
  const StudyUnits* units_;
  CompactionStudy& out_;
  std::vector<LanePermutationMap> maps_;
  uint32_t threads_ = 0, nwarps_ = 0;
  ptx::CtaContext cta_;
  std::vector<ptx::WarpContext> warps_;
  ptx::CtaBarriers barriers_;
  std::vector<Entry> stack_;
  std::vector<uint64_t> wide_;  // scratch
};

nlohmann::json counts_json(const MechanismCounts& c) {
  return {{"paths", c.paths},
          {"compacted", c.compacted},
          {"compaction_rate", c.paths ? double(c.compacted) / double(c.paths) : 0.0},
          {"warps", c.warps},
          {"paths_by_fraction", c.paths_by_fraction},
          {"compacted_by_fraction", c.compacted_by_fraction}};
}

}  // namespace

double CompactionStudy::simd_utilization(size_t mechanism) const {
  const uint64_t slots = warp_instructions[mechanism] * width;
  return slots ? double(thread_instructions) / double(slots) : 0.0;
}

nlohmann::json CompactionStudy::json() const {
  nlohmann::json mech = nlohmann::json::object();
  for (size_t m = 0; m < mechanisms.size(); ++m) {
    mech[mechanisms[m]] = {{"warp_instructions", warp_instructions[m]},
                           {"simd_utilization", simd_utilization(m)},
                           {"p_branches", counts_json(p_branches[m])},
                           {"d_branches", counts_json(d_branches[m])}};
  }
  nlohmann::json per_branch = nlohmann::json::object();
  for (const auto& [pc, b] : branches) {
    nlohmann::json by = nlohmann::json::object();
    for (size_t m = 0; m < mechanisms.size(); ++m) by[mechanisms[m]] = counts_json(b.by_mechanism[m]);
    per_branch[std::to_string(pc)] = {
        {"kind", b.data_dependent ? "D" : "P"},
        {"cuda", b.cuda.empty() ? nlohmann::json(nullptr) : nlohmann::json(b.cuda)},
        {"ptx_line", b.ptx_line},
        {"executed", b.executed},
        {"divergent", b.divergent},
        {"mechanisms", by}};
  }
  return {{"width", width},
          {"thread_instructions", thread_instructions},
          {"fraction_bins", {"[0,25%)", "[25%,50%)", "[50%,75%)", "[75%,100%]"}},
          {"mechanisms", mech},
          {"per_branch", per_branch}};
}

std::string StudyMechanism::label() const {
  const MechanismTraits& t = traits(unit_of(compaction));
  if (!t.permutes_lanes) return std::string(t.study_label);
  return std::string(t.study_label) + "+" + std::string(permutation_name(permutation));
}

std::vector<StudyMechanism> study_mechanisms(const std::vector<NamedPermutation>& permutations) {
  std::vector<StudyMechanism> out = {{Compaction::none}, {Compaction::ideal}};
  for (NamedPermutation p : permutations) out.push_back({Compaction::tbc, p});
  return out;
}

CompactionStudy run_compaction_study(const launch::Session& session, launch::DeviceImage& image,
                                     const std::vector<NamedPermutation>& permutations, uint64_t seed,
                                     const StudyUnits* units, bool log_paths) {
  CompactionStudy study;
  study.log_paths = log_paths;
  CtaWideRunner runner(session, image, permutations, seed, units, study);
  runner.run();
  study.buffers = image.read_buffers(session.launch());
  return study;
}

}  // namespace simtlm::studies
