// `simtlm herd-profile` (branch/data herding paper, Section V and Figure 11): which safe branches and loads
// to herd, and after how many herding instances to stop, so that the output quality loss stays under a bound
// on profiled inputs. docs/herding.md, "Profiling", states every rule.
//
//  1. Candidates: the branches and loads the safety analysis allows that diverge in an exact run of any
//     profiled input (a branch whose active lanes split; a load whose lanes read more than one block), most
//     divergent first.
//  2. Greedy: starting from none, each candidate joins the herded set when herding it as well is faster on at
//     least one input than the set without it. The worst quality loss over the inputs is recorded per set.
//  3. Threshold: the largest herding-instance count Th (max_instances) whose worst loss over the inputs stays
//     at or under the bound, found by bisection; 0 (never switch off) when the whole set already meets it.
// Profiled inputs are the launch file with seed = its seed + 1000 + k (k = 0..inputs-1), so the seeds a study
// reports on (the launch file's own) are never profiled.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/launch/herding_spec.hpp"

namespace simtlm::studies {

struct HerdProfileRequest {
  std::filesystem::path launch;
  std::vector<std::string> launch_sets;
  uint32_t inputs = 3;
  double max_quality_loss = 0.01;  // fraction of mismatching output bytes (the paper's metric), 0..1
  bool branches = true, loads = true;
  std::filesystem::path config;  // performance from timing cycles; empty: functional warp instructions
  uint64_t budget = 0;
  std::function<void(const std::string&)> log;  // one line per step (may be empty)
};

struct HerdProfileStep {
  std::string candidate;  // "branch PC 46 (...)" / "load PC 12 (...)"
  bool kept = false;
  std::vector<double> performance;   // per input: cycles or warp instructions with the candidate added
  std::vector<double> quality_loss;  // per input: mismatch fraction with the candidate added
  double worst_loss = 0;
};

struct HerdProfileResult {
  launch::HerdingSpec chosen;  // branches, loads and max_instances
  std::vector<double> baseline_performance;
  std::vector<HerdProfileStep> steps;
  double worst_loss_of_set = 0;        // with the chosen sites and no threshold
  double worst_loss_at_threshold = 0;  // with max_instances = chosen.max_instances
  std::vector<uint64_t> instances;     // per input, with the chosen sites and no threshold
  std::string performance_measure;     // "cycles" or "warp instructions"
};

HerdProfileResult herd_profile(const HerdProfileRequest& request);
nlohmann::json herd_profile_json(const HerdProfileRequest& request, const HerdProfileResult& result);
// A launch-file fragment: a comment with the figures, then the herding: section.
std::string herd_profile_yaml(const HerdProfileRequest& request, const HerdProfileResult& result);

}  // namespace simtlm::studies
