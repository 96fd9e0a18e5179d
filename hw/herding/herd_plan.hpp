// Which static branches and loads of one kernel a run herds: the herding spec's sites (PCs, CUDA lines,
// `all`) resolved against the kernel's code and filtered by the static safety analysis
// (models/ptx/herd_safety.hpp). Plain C++; the hooks of herding_hooks.hpp consult it on every event.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/launch/herding_spec.hpp"
#include "models/ptx/ir.hpp"

namespace simtlm::hw {

class HerdPlanError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct KernelHerdPlan {
  std::vector<uint8_t> branch;       // per PC: herd this conditional branch
  std::vector<uint8_t> load;         // per PC: herd this load wherever it reads
  std::vector<uint8_t> load_safe;    // per PC: a global load that may be herded (safe, or unsafe and forced)
  bool by_buffer = false;            // herd the loads of load_safe whose address lies in a named buffer
  std::vector<std::string> skipped;  // `all` sites left out, each with the analysis's reason
  bool herds_anything() const;
};

bool is_conditional_branch(const ptx::Instr& in);
// A load data herding may rewrite: ld in global or generic space (the coalescer's loads).
bool is_herdable_load(const ptx::Instr& in);
// Does the instruction at pc come from the CUDA line the site names?
bool site_matches(const launch::HerdSite& site, const ptx::Module& module, const ptx::Instr& in, uint32_t pc);

// The plan of `kernel`: the kernels: filter, then every site of the spec that lies in this kernel. A site
// that is unsafe to herd (or whose loop needs a bounded exit the spec also herds) is refused with the
// analysis's reason (HerdPlanError) unless spec.force_unsafe; `all` quietly leaves such sites out (listed in
// skipped).
KernelHerdPlan plan_kernel(const launch::HerdingSpec& spec, const ptx::Module& module,
                           const ptx::Function& kernel);
// Every explicit site must name a conditional branch (branches:) or a global load (loads:) of one of
// `kernels`, and every buffer of `buffer_names` must exist; throws HerdPlanError naming the site otherwise.
void check_sites(const launch::HerdingSpec& spec, const ptx::Module& module,
                 const std::vector<const ptx::Function*>& kernels,
                 const std::vector<std::string>& buffer_names);

}  // namespace simtlm::hw
