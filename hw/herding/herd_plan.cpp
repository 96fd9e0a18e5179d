#include "hw/herding/herd_plan.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "hw/issue_info.hpp"
#include "models/ptx/herd_safety.hpp"

namespace simtlm::hw {
namespace {

using launch::HerdSite;

bool path_suffix(const std::string& longer, const std::string& shorter) {
  if (shorter.size() > longer.size()) return false;
  if (longer.compare(longer.size() - shorter.size(), shorter.size(), shorter) != 0) return false;
  return longer.size() == shorter.size() || longer[longer.size() - shorter.size() - 1] == '/';
}

bool in_kernel_filter(const launch::HerdingSpec& spec, const ptx::Function& kernel) {
  return spec.kernels.empty() ||
         std::find(spec.kernels.begin(), spec.kernels.end(), kernel.name) != spec.kernels.end();
}

// The PCs of `kernel` a site names among the instructions `wanted` accepts.
template <class Wanted>
std::vector<uint32_t> site_pcs(const HerdSite& site, const ptx::Module& module, const ptx::Function& kernel,
                               Wanted wanted) {
  std::vector<uint32_t> pcs;
  for (uint32_t pc = 0; pc < kernel.code.size(); ++pc) {
    if (wanted(kernel.code[pc]) && site_matches(site, module, kernel.code[pc], pc)) pcs.push_back(pc);
  }
  return pcs;
}

std::string refusal(const std::string& what, const ptx::HerdSiteVerdict& verdict, const ptx::Module& module,
                    const ptx::Function& kernel, ptx::HerdSafetyRule rule) {
  std::string text = what;
  text.append(" is unsafe to herd under the ").append(ptx::herd_safety_rule_name(rule));
  text.append(" rule (give --force-unsafe or force_unsafe: true to herd it anyway):\n  ");
  text.append(ptx::describe_verdict(verdict, module, kernel));
  return text;
}

}  // namespace

bool KernelHerdPlan::herds_anything() const {
  const auto set = [](const std::vector<uint8_t>& v) { return std::find(v.begin(), v.end(), 1) != v.end(); };
  return set(branch) || set(load) || (by_buffer && set(load_safe));
}

bool is_conditional_branch(const ptx::Instr& in) {
  return in.op == ptx::Op::bra && in.guard != ptx::kNoReg;
}

bool is_herdable_load(const ptx::Instr& in) {
  return in.op == ptx::Op::ld && (in.space == ptx::Space::global || in.space == ptx::Space::none);
}

bool site_matches(const HerdSite& site, const ptx::Module& module, const ptx::Instr& in, uint32_t pc) {
  if (site.by_pc) return site.pc == pc;
  if (in.loc_line != site.line || in.loc_file == 0 || in.loc_file >= module.files.size()) return false;
  const std::string& file = module.files[in.loc_file];
  return path_suffix(file, site.file) || path_suffix(site.file, file);
}

KernelHerdPlan plan_kernel(const launch::HerdingSpec& spec, const ptx::Module& module,
                           const ptx::Function& kernel) {
  KernelHerdPlan plan;
  const size_t n = kernel.code.size();
  plan.branch.assign(n, 0);
  plan.load.assign(n, 0);
  plan.load_safe.assign(n, 0);
  if (!spec.any() || !in_kernel_filter(spec, kernel)) return plan;
  const ptx::HerdSafety safety = ptx::analyze_herd_safety(module, kernel, spec.safety);
  const auto name = [&](uint32_t pc) { return describe_pc(module, kernel, pc); };

  // Branches: explicit sites first (refused when unsafe), then `all` adds the safe rest.
  for (const HerdSite& site : spec.branches.sites) {
    for (uint32_t pc : site_pcs(site, module, kernel, is_conditional_branch)) {
      const ptx::HerdSiteVerdict* v = safety.branch_at(pc);
      if (v && !v->safe && !spec.force_unsafe)
        throw HerdPlanError(
            refusal("branch " + name(pc) + " of kernel " + kernel.name, *v, module, kernel, spec.safety));
      plan.branch[pc] = 1;
    }
  }
  if (spec.branches.all) {
    for (uint32_t pc = 0; pc < n; ++pc) {
      if (!is_conditional_branch(kernel.code[pc]) || plan.branch[pc]) continue;
      const ptx::HerdSiteVerdict* v = safety.branch_at(pc);
      if (v && !v->safe && !spec.force_unsafe) {
        plan.skipped.push_back("branch " + name(pc) + ": " + ptx::describe_verdict(*v, module, kernel));
        continue;
      }
      plan.branch[pc] = 1;
    }
  }
  // A safe loop exit stays safe only while the bounded exit it relies on is not herded.
  if (!spec.force_unsafe) {
    for (const ptx::HerdSiteVerdict& v : safety.branches) {
      if (!plan.branch[v.pc]) continue;
      for (uint32_t needed : v.requires_unherded) {
        if (needed >= n || !plan.branch[needed]) continue;
        const bool explicit_site =
            std::any_of(spec.branches.sites.begin(), spec.branches.sites.end(),
                        [&](const HerdSite& s) { return site_matches(s, module, kernel.code[v.pc], v.pc); });
        const std::string why = fmt::format(
            "branch {} exits its loop safely only while the bounded exit {} "
            "stays unherded, and both are herded",
            name(v.pc), name(needed));
        if (explicit_site) throw HerdPlanError(why + " (kernel " + kernel.name + ")");
        plan.branch[v.pc] = 0;
        plan.skipped.push_back(why);
      }
    }
  }

  // Loads.
  for (uint32_t pc = 0; pc < n; ++pc) {
    if (!is_herdable_load(kernel.code[pc])) continue;
    const ptx::HerdSiteVerdict* v = safety.load_at(pc);
    plan.load_safe[pc] = !v || v->safe || spec.force_unsafe;
  }
  for (const HerdSite& site : spec.loads.sites) {
    for (uint32_t pc : site_pcs(site, module, kernel, is_herdable_load)) {
      if (!plan.load_safe[pc]) {
        throw HerdPlanError(refusal("load " + name(pc) + " of kernel " + kernel.name, *safety.load_at(pc),
                                    module, kernel, spec.safety));
      }
      plan.load[pc] = 1;
    }
  }
  if (spec.loads.all) {
    for (uint32_t pc = 0; pc < n; ++pc) {
      if (!is_herdable_load(kernel.code[pc]) || plan.load[pc]) continue;
      if (plan.load_safe[pc]) {
        plan.load[pc] = 1;
      } else {
        plan.skipped.push_back("load " + name(pc) + ": " +
                               ptx::describe_verdict(*safety.load_at(pc), module, kernel));
      }
    }
  }
  plan.by_buffer = !spec.buffers.empty();
  return plan;
}

void check_sites(const launch::HerdingSpec& spec, const ptx::Module& module,
                 const std::vector<const ptx::Function*>& kernels,
                 const std::vector<std::string>& buffer_names) {
  const auto check = [&](const HerdSite& site, const char* what, auto wanted) {
    for (const ptx::Function* kernel : kernels) {
      if (in_kernel_filter(spec, *kernel) && !site_pcs(site, module, *kernel, wanted).empty()) return;
    }
    std::string names;
    for (const ptx::Function* kernel : kernels) names.append(names.empty() ? "" : ", ").append(kernel->name);
    throw HerdPlanError(fmt::format("herding site {} names no {} of kernel {}", site.text(), what, names));
  };
  for (const HerdSite& site : spec.branches.sites) check(site, "conditional branch", is_conditional_branch);
  for (const HerdSite& site : spec.loads.sites) check(site, "global or generic load", is_herdable_load);
  for (const std::string& kernel : spec.kernels) {
    if (std::none_of(kernels.begin(), kernels.end(),
                     [&](const ptx::Function* f) { return f->name == kernel; }))
      throw HerdPlanError("herding names kernel " + kernel + ", which the launch does not run");
  }
  for (const std::string& buffer : spec.buffers) {
    if (std::find(buffer_names.begin(), buffer_names.end(), buffer) == buffer_names.end())
      throw HerdPlanError("herding names buffer " + buffer + ", which the launch file does not declare");
  }
}

}  // namespace simtlm::hw
