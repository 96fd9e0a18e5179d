// The four units' Verilated SystemC (--sc) twins at W = 32 in one SystemC module, evaluated once per
// warp-level event with whole lane masks and address vectors written to sc_signals.
//
// Cost model: the combinational units (majority, permutation read) take one delta cycle per evaluation.
// Inputs of event i are written in delta i, the twin evaluates in delta i+1 and its outputs are read in delta
// i+2, while the inputs of events i+1 and i+2 are already written: a two-deep pipeline, so a batch of n
// events costs n+1 delta cycles. The compactor is clocked: each step is one clock cycle, its inputs written
// with the clock low and the rising edge one delta later; the outputs after the edge are read one delta after
// the falling edge is written. Each compacted warp costs two delta cycles (pop is already high from the
// previous falling edge), a load three (its inputs take a delta of their own before the rising edge). The
// popular-block selector is clocked too (pipelined, ROUNDS = 1): per event, one delta for the inputs and
// start, then the edge that samples start and latency_cycles(1) = 2 more edges of two delta cycles each, 7
// delta cycles per selection. No method waits for simulated time.
//
// Every method waits for delta cycles: call them from a SystemC thread process.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <systemc>
#include <vector>

#include "hw/units/lane_permutation.hpp"
#include "hw/units/majority_unit.hpp"
#include "hw/units/popular_block_selector.hpp"
#include "hw/units/priority_encoder_compactor.hpp"
#include "testbenches/rtl/cosim/workload_trace.hpp"

namespace simtlm::cosim {

inline constexpr uint32_t kScTwinWidth = 32;
inline constexpr uint32_t kScPermutationWarpIds = 64;  // the RTL's WARP_ID_BITS = 6

// The permutation unit is asked, per branch event, where the branch's active lanes live: table entry of the
// warp (warp ids wrap at the table size) and the active mask. The C++ side of every comparison uses this too.
inline uint32_t permutation_warp(const BranchEvent& event) {
  return event.warp % kScPermutationWarpIds;
}

class ScTwins : public sc_core::sc_module {
 public:
  explicit ScTwins(const sc_core::sc_module_name& name);
  ~ScTwins() override;

  // Resets the clocked units (permutation table to 0, compactor empty).
  void reset();
  // Writes table entries 0..masks.size()-1 (one clock cycle each) and selects a mode.
  void load_permutation_table(std::span<const uint32_t> xor_masks);
  void set_permutation_mode(hw::PermutationMode mode);

  // One evaluation per event; `out` is resized to the number of events.
  void vote(std::span<const BranchEvent> events, std::vector<hw::BranchVote>& out);
  void permute(std::span<const BranchEvent> events, std::vector<uint64_t>& physical_masks);
  // Checks the selector's handshake on every event: done exactly latency_cycles(1) edges after the edge that
  // samples start, busy until then; each violation counts in selector_handshake_errors().
  void select(std::span<const LoadEvent> events, uint32_t line_shift, std::vector<hw::HerdedLoad>& out);
  // Per event, the whole compacted schedule (as hw::compact_all gives it).
  void compact(std::span<const CompactionEvent> events, std::vector<std::vector<hw::CompactedWarp>>& out);

  uint64_t selector_handshake_errors() const { return selector_handshake_errors_; }

 private:
  struct Signals;
  std::unique_ptr<Signals> signals_;
  uint64_t selector_handshake_errors_ = 0;
};

}  // namespace simtlm::cosim
