#include "testbenches/rtl/cosim/replay.hpp"

#include "models/launch/buffers.hpp"

namespace simtlm::cosim {
namespace {

const sc_core::sc_time kCycle(1, sc_core::SC_NS);

}  // namespace

std::vector<uint32_t> permutation_table() {
  launch::SplitMix64 rng(kPermutationSeed);
  std::vector<uint32_t> table(kScPermutationWarpIds);
  for (uint32_t& xor_mask : table) xor_mask = static_cast<uint32_t>(rng.next() % kScTwinWidth);
  return table;
}

UnitSetReplay::UnitSetReplay(const sc_core::sc_module_name& name, hw::UnitSet& units,
                             const WorkloadTrace& trace, uint64_t& cycle)
    : sc_core::sc_module(name), units_(units), trace_(trace), cycle_(cycle) {
  SC_THREAD(run);
}

void UnitSetReplay::run() {
  try {
    const std::vector<uint32_t> table = permutation_table();
    for (uint32_t warp = 0; warp < table.size(); ++warp) units_.permutation->load(warp, table[warp]);
    units_.permutation->set_mode(hw::PermutationMode::kTable);
    for (const BranchEvent& event : trace_.branches) {
      sc_core::wait(kCycle);
      cycle_ = event.instruction;
      units_.majority->vote(event.taken, event.active);
      ++counts.votes;
      units_.permutation->permute_mask(permutation_warp(event), event.active);
      ++counts.permutations;
    }
    for (const LoadEvent& event : trace_.loads) {
      sc_core::wait(kCycle);
      cycle_ = event.instruction;
      units_.popular_block->select(event.address, event.active, kLineShift);
      ++counts.selections;
    }
    for (const CompactionEvent& event : trace_.compactions) {
      sc_core::wait(kCycle);
      cycle_ = event.instruction;
      units_.compactor->load(event.warp_masks);
      ++counts.compactions;
      while (!units_.compactor->done()) {
        units_.compactor->next();
        ++counts.compacted_warps;
      }
    }
  } catch (const hw::RtlMismatch& error) {
    mismatch = error;
    sc_core::sc_stop();
  }
}

ScTwinReplay::ScTwinReplay(const sc_core::sc_module_name& name, const WorkloadTrace& trace)
    : sc_core::sc_module(name), trace_(trace), twins_("twins") {
  SC_THREAD(run);
}

void ScTwinReplay::run() {
  const std::vector<uint32_t> table = permutation_table();
  twins_.reset();
  twins_.load_permutation_table(table);
  twins_.set_permutation_mode(hw::PermutationMode::kTable);

  uint64_t start = sc_core::sc_delta_count();
  twins_.vote(trace_.branches, rtl_votes);
  vote_deltas = sc_core::sc_delta_count() - start;
  start = sc_core::sc_delta_count();
  twins_.permute(trace_.branches, rtl_physical);
  permute_deltas = sc_core::sc_delta_count() - start;
  start = sc_core::sc_delta_count();
  twins_.select(trace_.loads, kLineShift, rtl_herded);
  select_deltas = sc_core::sc_delta_count() - start;
  select_handshake_errors = twins_.selector_handshake_errors();
  start = sc_core::sc_delta_count();
  twins_.compact(trace_.compactions, rtl_compacted);
  compact_deltas = sc_core::sc_delta_count() - start;

  hw::MajorityUnit majority(kScTwinWidth);
  hw::PermutationTable permutation(kScTwinWidth, kScPermutationWarpIds);
  for (uint32_t warp = 0; warp < table.size(); ++warp) permutation.load(warp, table[warp]);
  permutation.set_mode(hw::PermutationMode::kTable);
  for (const BranchEvent& event : trace_.branches) {
    model_votes.push_back(majority.vote(event.taken, event.active));
    model_physical.push_back(permutation.permute_mask(permutation_warp(event), event.active));
  }
  hw::PopularBlockSelector selector(kScTwinWidth);
  for (const LoadEvent& event : trace_.loads) {
    model_herded.push_back(selector.select(event.address, event.active, kLineShift));
  }
  hw::PriorityEncoderCompactor compactor(kScTwinWidth, kCompactorWarps);
  for (const CompactionEvent& event : trace_.compactions) {
    model_compacted.push_back(hw::compact_all(compactor, event.warp_masks));
  }
  finished = true;
}

}  // namespace simtlm::cosim
