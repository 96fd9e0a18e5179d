// `simtlm compare` as a function: one kernel under every compaction mechanism and lane permutation, counted
// by the compaction study (studies/compaction_study.*) and, given a machine configuration, timed on the
// SystemC model in one child process per mechanism. Inputs and results are typed; the child's JSON is read in
// one place (compare.cpp), and JSON is written only for compare.json and paths.jsonl.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hw/units/permutations.hpp"
#include "models/launch/session.hpp"
#include "studies/compaction_study.hpp"

namespace simtlm::studies {

struct CompareRequest {
  std::filesystem::path launch;  // the launch file, named in messages and in compare.json
  std::vector<hw::NamedPermutation> permutations;
  uint64_t seed = 1;  // the random permutation's
  // The timed runs' session options (budget, host references), as the functional session's.
  launch::SessionOptions session_options;
  std::filesystem::path config;  // non-empty: also time every mechanism on this machine
  bool log_paths = false;        // keep every dynamic path (paths.jsonl)
  std::string rtl;               // permutation and/or compactor as Verilated RTL
  bool rtl_check = false;
};

// One mechanism on the timing model: the figures compare reports of the run's statistics.
struct TimedMechanism {
  studies::StudyMechanism mechanism;
  uint64_t cycles = 0;
  double ipc = 0;
  uint64_t warp_instructions = 0;
  double simd_utilization = 0;
  uint64_t l1_misses = 0;
  double l1_miss_rate = 0;  // of L1 accesses (hits and misses); 0 without any
  // The run's stats.json sections, copied into compare.json as they are.
  nlohmann::json compaction, stalls;
};

struct CompareResult {
  studies::CompactionStudy study;
  // Empty without a configuration; else the study's mechanisms in its order, then capri+P per permutation.
  std::vector<TimedMechanism> timed;
  bool outputs_equal_functional = false;  // every run's buffers equal the functional run's
  const TimedMechanism& timed_run(const std::string& label) const;
};

// The --permutations list: "all" or comma-separated names. Throws std::runtime_error naming the valid ones.
std::vector<hw::NamedPermutation> parse_permutation_list(const std::string& list);

// Runs the functional reference, the study and the timed runs. Throws std::runtime_error naming the launch
// file (and the mechanism) on a kernel fault, an RTL disagreement or a failed timed run, and for --rtl
// options the units cannot hold.
CompareResult compare(launch::Session& session, const CompareRequest& request);

// compare.json's document and paths.jsonl's lines (empty unless request.log_paths).
nlohmann::json compare_document(const CompareResult& result, const CompareRequest& request,
                                const std::string& kernel);
std::string paths_lines(const CompareResult& result);

}  // namespace simtlm::studies
