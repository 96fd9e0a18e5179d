// Static safety analysis for branch and data herding (Sartori and Kumar, Section V): which conditional
// branches and which loads of a kernel may be herded without risking a fault, a division by zero or a loop
// that no longer ends. A site is unsafe when a vulnerable operation depends on it through register data
// flow, memory carried data flow or control dependence; loops stay safe only while a bounded exit remains.
// The rules, with examples, are in docs/ir.md ("Herding safety analysis").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/ptx/herd_safety_rule.hpp"
#include "models/ptx/ir.hpp"

namespace simtlm::ptx {

enum class VulnerableKind : uint8_t { load_address, store_address, atomic_address, divisor, loop_condition };
const char* vulnerable_kind_name(VulnerableKind kind);  // "load_address", ...

// Why a site is unsafe.
struct Vulnerability {
  VulnerableKind kind = VulnerableKind::load_address;
  uint32_t pc = 0;  // the vulnerable instruction
  bool operator==(const Vulnerability&) const = default;
};

struct HerdSiteVerdict {
  uint32_t pc = 0;  // the conditional branch (guarded bra) or the ld
  bool safe = true;
  std::vector<Vulnerability> reasons;  // empty when safe; every distinct vulnerable op reached, in PC order
  // Under the relaxed rule: the vulnerable operations that depend on the site only through whether they run
  // (in PC order); empty under the strict rule, which counts them among the reasons.
  std::vector<Vulnerability> only_skipped;
  std::string note;  // e.g. "loop exit; another bounded exit (PC 31) stays unherded"
  // Bounded loop exits (branch PCs, ascending) that keep this site safe only while they are not herded.
  std::vector<uint32_t> requires_unherded;
  bool requires_unherded_branch(uint32_t branch_pc) const;
};

struct HerdSafety {
  std::vector<HerdSiteVerdict> branches;  // every conditional branch of the kernel, in PC order
  std::vector<HerdSiteVerdict> loads;     // every ld (any state space except .param), in PC order
  const HerdSiteVerdict* branch_at(uint32_t pc) const;  // nullptr when pc is no conditional branch
  const HerdSiteVerdict* load_at(uint32_t pc) const;
};

// The analysis of one kernel of `module`, on its code as linked for execution (the bodies of called .funcs
// appended, see call_link.hpp).
HerdSafety analyze_herd_safety(const Module& module, const Function& kernel,
                               HerdSafetyRule rule = HerdSafetyRule::strict);

// One line per reason: "unsafe: the address of st.global at PC 40 (PTX line 88, sobel.cu:31) depends on it";
// a safe site gives one line starting with "safe".
std::string describe_verdict(const HerdSiteVerdict& verdict, const Module& module, const Function& kernel);

// "PTX line 88, sobel.cu:31" (the CUDA part only when the instruction has a .loc).
std::string describe_location(const Module& module, const Function& kernel, uint32_t pc);

}  // namespace simtlm::ptx
