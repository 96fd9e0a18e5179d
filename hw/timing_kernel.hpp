// What every SM shares about the kernel being timed: the code with its issue information, the CFG's
// reconvergence points, the SSY points of the token discipline, the functional executor and the CTA shape.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "hw/issue_info.hpp"
#include "hw/ssy_points.hpp"
#include "models/ptx/cfg.hpp"
#include "models/ptx/functional.hpp"
#include "models/ptx/taint.hpp"

namespace simtlm::hw {

struct TimingKernel {
  TimingKernel(const ptx::LaunchContext& launch_context, uint32_t registers_per_thread_override,
               uint64_t thread_instruction_budget)
      : launch(launch_context),
        fn(*launch_context.kernel),
        module(*launch_context.module),
        cfg(fn),
        ssy(fn, cfg),
        executor(launch_context),
        info(decode_issue_info(fn, cfg)),
        threads_per_cta(static_cast<uint32_t>(launch_context.block.count())),
        warps_per_cta((threads_per_cta + ptx::kWarpSize - 1) / ptx::kWarpSize),
        shared_per_cta(uint32_t(ptx::shared_layout(fn, launch_context.dynamic_shared_bytes).cta_bytes)),
        budget(thread_instruction_budget) {
    const ptx::TaintAnalysis taint(module, fn);
    data_branch.assign(fn.code.size(), 0);
    for (const ptx::BranchTaint& b : taint.branches()) data_branch[b.pc] = b.kind == ptx::BranchClass::kData;
    registers_per_thread = registers_per_thread_override
                               ? registers_per_thread_override
                               : std::clamp<uint32_t>(max_live_register_words(fn, info), 1, 63);
  }

  std::string where_pc(uint32_t pc) const { return describe_pc(module, fn, pc); }

  const ptx::LaunchContext& launch;
  const ptx::Function& fn;
  const ptx::Module& module;
  const ptx::Cfg cfg;
  const SsyMap ssy;
  const ptx::Executor executor;
  const std::vector<IssueInfo> info;
  const uint32_t threads_per_cta;
  const uint32_t warps_per_cta;
  const uint32_t shared_per_cta;
  uint32_t registers_per_thread = 0;
  std::vector<uint8_t> data_branch;  // per PC: a D-branch by the taint analysis
  const uint64_t budget;             // thread instructions, whole grid
};

}  // namespace simtlm::hw
