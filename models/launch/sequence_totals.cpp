#include "models/launch/sequence_totals.hpp"

#include <algorithm>
#include <vector>

namespace simtlm::launch {

SequenceBranchTotals sum_launch_branches(const nlohmann::json& launches) {
  SequenceBranchTotals totals;
  std::vector<std::string> kernels;
  for (const nlohmann::json& l : launches) {
    const std::string k = l["kernel"].get<std::string>();
    if (std::find(kernels.begin(), kernels.end(), k) == kernels.end()) kernels.push_back(k);
    if (!l.contains("per_branch")) continue;
    for (const auto& [pc, b] : l["per_branch"].items()) {
      nlohmann::json& t = totals.per_branch[k + ":" + pc];
      if (t.is_null()) {
        t = b;
      } else {
        t["executed"] = t["executed"].get<uint64_t>() + b["executed"].get<uint64_t>();
        t["divergent"] = t["divergent"].get<uint64_t>() + b["divergent"].get<uint64_t>();
      }
    }
  }
  for (const std::string& k : kernels) totals.kernel_list += (totals.kernel_list.empty() ? "" : ", ") + k;
  return totals;
}

}  // namespace simtlm::launch
