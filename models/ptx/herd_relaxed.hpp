// The relaxed rule of the herding safety analysis (herd_safety.hpp, `safety: relaxed`): the paper's
// Section V lets a branch be herded when herding it "only skips" the vulnerable operations that depend on
// it. Herding a site can change a vulnerable operation in two ways: its operand (an address, a divisor) or
// whether it runs in a lane. The relaxed rule admits a site for one operation when
//   (a) the site is not in the backward slice of the operand's value, so every lane that runs the
//       operation computes the operand the exact run would compute there, and
//   (b) no test that checks the operand depends on the site: a *checking* test is a decision that controls
//       the operation (its guard, or a control ancestor) whose predicate shares a root source with the
//       operand, and the site must stay out of that predicate's backward slice.
// Root sources are what register data flow starts from: a special register (%tid.x, %ctaid.y, ...), a
// kernel parameter, or memory (every other load, atomic or call result, all one source). A bounds check
// `if (i < n) a[i]` shares %tid with the address, so it checks the store and is never admitted; an obstacle
// test on a loaded flag shares nothing with a store addressed by the thread index, so it is.
// The rule rests on one assumption, which the strict rule does not make: an operand nothing on the path
// checks is valid in every lane that reaches the site, whichever way the site goes. Loop exit tests keep
// the strict loop rule under both rules. docs/ir.md, "Herding safety analysis", has the examples.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "models/ptx/herd_dependence.hpp"

namespace simtlm::ptx::herd {

class RelaxedRule {
 public:
  explicit RelaxedRule(const DependenceGraph& graph) : graph_(graph) {}

  // Whether herding `site` can only skip or add the vulnerable operation at `pc` whose operand is the
  // register `operand_reg` (read at pc), never make it run on an operand no test checked.
  bool admits(uint32_t site, uint32_t pc, uint32_t operand_reg);

 private:
  struct Operation {
    std::vector<uint8_t> operand_slice;               // (a)
    std::vector<const std::vector<uint8_t>*> checks;  // (b): the checking tests' predicate slices
    std::vector<uint32_t> check_pcs;
  };
  const Operation& operation(uint32_t pc, uint32_t operand_reg);
  const std::set<uint64_t>& roots(uint32_t pc, uint32_t reg);
  const std::vector<uint8_t>& predicate_slice(uint32_t pc);
  std::vector<uint32_t> deciders(uint32_t pc) const;  // the guard's pc (itself) and the control ancestors

  const DependenceGraph& graph_;
  std::map<std::pair<uint32_t, uint32_t>, Operation> operations_;
  std::map<std::pair<uint32_t, uint32_t>, std::set<uint64_t>> roots_;
  std::map<uint32_t, std::vector<uint8_t>> predicate_slices_;
};

}  // namespace simtlm::ptx::herd
