// SystemC modules that replay a recorded workload trace through the units, one evaluation per warp-level
// event: UnitSetReplay through the hw::UnitSet interfaces (C++ models, --cc twins or both checked), and
// ScTwinReplay through the Verilated SystemC twins (ScTwins) next to the C++ models.
#pragma once

#include <optional>
#include <string>
#include <systemc>
#include <vector>

#include "hw/units/select/unit_set.hpp"
#include "testbenches/rtl/cosim/sc_twin_driver.hpp"
#include "testbenches/rtl/cosim/workload_trace.hpp"

namespace simtlm::cosim {

inline constexpr uint32_t kLineShift = 7;           // 128-byte blocks for data herding
inline constexpr uint64_t kPermutationSeed = 2024;  // random XOR table loaded into the permutation unit

// The permutation table every replay loads (random XOR masks, so every warp id permutes differently).
std::vector<uint32_t> permutation_table();

struct EvaluationCounts {
  uint64_t votes = 0;            // majority evaluations
  uint64_t permutations = 0;     // permutation evaluations
  uint64_t selections = 0;       // popular-block evaluations
  uint64_t compactions = 0;      // compactor loads
  uint64_t compacted_warps = 0;  // compactor steps that produced a warp
};

// One thread issues each event at its own clock cycle (1 ns) and makes one call on one unit for it; the call
// itself never enters the SystemC kernel. `cycle` is set to the event's instruction index before each call,
// which is what an RtlMismatch report names. A mismatch stops the simulation and is kept in `mismatch`.
class UnitSetReplay : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(UnitSetReplay);
  UnitSetReplay(const sc_core::sc_module_name& name, hw::UnitSet& units, const WorkloadTrace& trace,
                uint64_t& cycle);

  EvaluationCounts counts;
  std::optional<hw::RtlMismatch> mismatch;

 private:
  void run();

  hw::UnitSet& units_;
  const WorkloadTrace& trace_;
  uint64_t& cycle_;
};

// The --sc twins evaluate the whole trace in batches (one delta cycle per combinational evaluation, a clock
// cycle of two delta cycles per step of the clocked units); the C++ models evaluate it too. The results of
// both are kept for the test to compare, with the delta cycles each batch took.
class ScTwinReplay : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(ScTwinReplay);
  ScTwinReplay(const sc_core::sc_module_name& name, const WorkloadTrace& trace);

  std::vector<hw::BranchVote> rtl_votes, model_votes;
  std::vector<uint64_t> rtl_physical, model_physical;
  std::vector<hw::HerdedLoad> rtl_herded, model_herded;
  std::vector<std::vector<hw::CompactedWarp>> rtl_compacted, model_compacted;
  uint64_t vote_deltas = 0, permute_deltas = 0, select_deltas = 0, compact_deltas = 0;
  uint64_t select_handshake_errors = 0;  // selections whose done/busy came at the wrong edge
  bool finished = false;

 private:
  void run();

  const WorkloadTrace& trace_;
  ScTwins twins_;
};

}  // namespace simtlm::cosim
