// Static taint analysis of a kernel's conditional branches (SLP paper, Section 3.2 and Figure 10): a
// P-branch's predicate depends only on programmatic values (thread and CTA ids and sizes, kernel parameters,
// immediates); a D-branch's depends on a value loaded from a data array. Forward data flow over the CFG to a
// fixed point; rules in docs/slp.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/ptx/ir.hpp"

namespace simtlm::ptx {

// Where a value comes from; a value carries the union of its operands' sources. No bit set: only immediates
// and symbol addresses.
enum TaintSource : uint8_t {
  kFromData = 1u << 0,     // ld (not .param) or atom, in global, shared, const, local or generic space.
  kFromThread = 1u << 1,   // %tid, %laneid, %lanemask_*: differs between the threads of a CTA.
  kFromCta = 1u << 2,      // %ctaid, %ntid, %nctaid, %gridid: one value per CTA.
  kFromParam = 1u << 3,    // ld.param of a kernel parameter: one value per launch.
  kFromMachine = 1u << 4,  // %clock*, %globaltimer, %smid, %nsmid, %warpid, %nwarpid, activemask, a call's
                           // return value: neither data nor programmatic by the paper's list; not data, so P.
};

enum class BranchClass : uint8_t {
  kProgrammatic,  // P-branch
  kData,          // D-branch
};

struct BranchTaint {
  uint32_t pc = 0;
  uint32_t predicate = kNoReg;  // The guard register.
  BranchClass kind = BranchClass::kProgrammatic;
  uint8_t sources = 0;                // TaintSource bits reaching the predicate.
  uint32_t data_load_pc = kNoTarget;  // D: the lowest-pc load whose value reaches the predicate.
};

class TaintAnalysis {
 public:
  // `fn` must belong to `module` (its symbols tell kernel parameters from call-scope ones).
  TaintAnalysis(const Module& module, const Function& fn);

  // Every conditional branch (Cfg::is_conditional_branch) in pc order.
  const std::vector<BranchTaint>& branches() const { return branches_; }
  // The classification of the conditional branch at `pc`; throws std::out_of_range for any other pc.
  const BranchTaint& at(uint32_t pc) const;

 private:
  std::vector<BranchTaint> branches_;
};

char branch_class_letter(BranchClass kind);  // 'P' or 'D'
// "data+thread+cta+param+machine" in that order, only the bits set; "imm" when none.
std::string describe_sources(uint8_t sources);

}  // namespace simtlm::ptx
