// Compactability of a kernel's divergent branches under thread block compaction (TBC) and SIMD lane
// permutations, measured as the SLP paper measures it in Sections 6.1 and 6.2: from the CTA-wide active masks
// of a functional run in which each CTA follows one CTA-wide post-dominator stack (TBC's block-wide stack).
// Values come from the functional executor, warp part by warp part, so outputs equal the functional runner's.
//
// One run serves every mechanism: paths and masks do not depend on the lane mapping, only the number of warps
// the compactor forms from them does. Mechanisms: "no_tbc" (a warp per CTA warp with a thread on the path),
// "ideal" (any thread in any lane, Equation 1) and "tbc+P" for each permutation P ("tbc+identity" is TBC).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hw/divergence/mechanism.hpp"
#include "hw/units/permutations.hpp"
#include "hw/units/priority_encoder_compactor.hpp"
#include "models/launch/session.hpp"

namespace simtlm::studies {

// The mechanisms and permutations the study names, as the timing model defines them.
using hw::Compaction;
using hw::LanePermutation;
using hw::NamedPermutation;
using hw::permutation_name;
using hw::traits;
using hw::unit_of;
using hw::WarpCompaction;

// Bins of the fraction of the CTA's threads on a path (Figures 12 and 13): [0,25%), [25,50%), [50,75%),
// [75,100%].
inline constexpr size_t kFractionBins = 4;

struct MechanismCounts {
  uint64_t paths = 0;      // CTA-wide paths of divergent branches
  uint64_t compacted = 0;  // of which this mechanism needs fewer warps than no_tbc
  std::array<uint64_t, kFractionBins> paths_by_fraction{}, compacted_by_fraction{};
  uint64_t warps = 0;  // warps summed over the paths
};

// A mechanism as the study and `simtlm compare` name it: "no_tbc" (per-warp stacks), "ideal", "tbc+P" for
// thread block compaction under lane permutation P, and "capri+P" (timed only).
struct StudyMechanism {
  Compaction compaction = Compaction::none;
  NamedPermutation permutation = NamedPermutation::kIdentity;  // of tbc and capri
  std::string label() const;
};
// The study's mechanisms in its order: no_tbc, ideal, then tbc+P for each permutation.
std::vector<StudyMechanism> study_mechanisms(const std::vector<NamedPermutation>& permutations);

struct StaticBranchCompaction {
  bool data_dependent = false;  // D-branch (else P) by the taint analysis
  std::string cuda;             // file.cu:line or ""
  uint32_t ptx_line = 0;
  uint64_t executed = 0;   // CTA-wide executions
  uint64_t divergent = 0;  // of which the CTA's threads split
  std::vector<MechanismCounts> by_mechanism;
};

// One dynamic path of a divergent CTA-wide branch (kept when CompactionStudy::log_paths is set).
struct PathRecord {
  uint32_t pc = 0;
  uint64_t cta = 0;  // linear CTA id
  bool taken = false;
  uint32_t active_threads = 0;
  std::vector<uint32_t> warps;  // per mechanism; [0] = NW_NoTBC, [1] = NW_ideal
};

struct CompactionStudy {
  bool log_paths = false;               // set before the run to fill `paths`
  std::vector<PathRecord> paths;        // in execution order
  std::vector<std::string> mechanisms;  // no_tbc, ideal, tbc+identity, tbc+balanced, ...
  uint64_t thread_instructions = 0;
  std::vector<uint64_t> warp_instructions;  // per mechanism: warps issued summed over instructions
  std::vector<MechanismCounts> p_branches, d_branches;  // per mechanism
  std::map<uint32_t, StaticBranchCompaction> branches;  // by PC
  std::map<std::string, std::vector<uint8_t>> buffers;
  double simd_utilization(size_t mechanism) const;  // thread instructions over warp instructions x width
  uint32_t width = 32;
  nlohmann::json json() const;
};

// Hardware units standing in for the C++ models, one per permutation of the run (nullptr: the C++ model):
// the permutation unit loaded with that permutation's table, and the compactor (`simtlm compare --rtl`).
struct StudyUnits {
  std::vector<LanePermutation*> permutation;
  std::vector<WarpCompaction*> compactor;
};

// Runs session's launch on `image` with the CTA-wide stack. Throws ptx::KernelError as the functional runner
// does, and for a barrier that only part of a CTA-wide path reaches (TBC would deadlock there as well).
CompactionStudy run_compaction_study(const launch::Session& session, launch::DeviceImage& image,
                                     const std::vector<NamedPermutation>& permutations, uint64_t seed = 1,
                                     const StudyUnits* units = nullptr, bool log_paths = false);

}  // namespace simtlm::studies
