// Switching activity of the rtl/ units' input pins on the workload suite, for OpenSTA's power analysis
// (scripts/area_timing/power.py reads docs/area-timing/activity.json, written by `unit_activity`).
//
// Each unit is driven by the warp-level events the functional model recorded (workload_trace.hpp) through an
// operation schedule, one input vector per clock cycle, back to back (no idle cycles between events):
//  - majority_unit: one branch event per cycle; taken[i], active[i] of the event.
//  - slp_permutation_unit: one branch event per cycle; logical_mask = taken & active, warp = the event's warp
//    id modulo 2^6 (renumbered for the width, below), lane = the first active lane of the event (0 if none),
//    mode = 2 (Balanced), wr_en = wr_warp = wr_mask = rst = 0.
//  - priority_encoder_compactor: per compaction load one load cycle (load = 1, pending_in = the CTA-wide mask
//    of one side of a divergent branch re-chunked into W-lane warps, 16 warps per load) followed by one pop
//    cycle (pop = 1) per compacted warp the C++ model emits; pending_in holds its value during the pops.
//    Each compaction event is re-chunked on its own: exact for the suite, whose CTAs have at most 512
//    threads (one event per side); a larger CTA's 16-warp chunks would stay separate loads at W = 64.
//    Groups with nothing pending are not loaded.
//  - popular_block_selector: per global load one event (addr_in, active, line_shift = 7 for 128-byte blocks,
//    AW = 64). Its schedule depends on ROUNDS (inputs held for L = ROUNDS + 1 cycles per event), so its
//    figures are per EVENT: "cycles" = events, toggles per event, duty = fraction of events the pin is 1;
//    `start` pulses high one cycle per event (2 toggles per event, duty written as 1 cycle per event): divide
//    every toggle count, and start's duty, by L to get per-cycle figures.
// Width adaptation of the 32-lane traces: for W < 32 each event becomes 32/W consecutive W-lane events (lanes
// in order; the warp id of part k of warp w is w*32/W + k); for W = 64 consecutive pairs of events of the
// kernel are joined (first event in the low lanes, warp id = first warp id / 2; an odd last event is joined
// with an empty one). Toggles count transitions between consecutive cycles' values; the first cycle starts
// from all pins at 0.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "testbenches/rtl/cosim/workload_trace.hpp"

namespace simtlm::cosim::activity {

inline constexpr uint32_t kAddressBits = 64;  // AW of the popular-block selector
inline constexpr uint32_t kLineShift = 7;     // 128-byte blocks
inline constexpr uint32_t kWarpIdBits = 6;    // WARP_ID_BITS of the permutation unit

struct PortSpec {
  std::string name;
  uint32_t width = 1;  // a 1-bit port's pin is named without an index, as OpenSTA names it
};

struct PinFigures {
  std::string pin;  // "taken[3]", "load"
  double toggles_per_cycle = 0;
  double duty = 0;
};

// Per-pin transition and one counts of a unit's inputs over a schedule of clock cycles. The input vector is
// the ports' bits concatenated in the order given (see offset()).
class ActivityCounter {
 public:
  explicit ActivityCounter(std::vector<PortSpec> ports);
  uint32_t offset(std::string_view port) const;  // first bit of the port in the input vector
  std::vector<uint64_t> zero_inputs() const;
  // The unit sees `inputs` during `cycles` consecutive clock cycles.
  void hold(const std::vector<uint64_t>& inputs, uint64_t cycles = 1);
  uint64_t cycles() const { return cycles_; }
  std::vector<PinFigures> pins() const;  // in port order, bit 0 first

 private:
  std::vector<PortSpec> ports_;
  std::vector<uint32_t> offsets_;
  uint32_t total_bits_ = 0;
  std::vector<uint64_t> previous_;
  std::vector<uint64_t> toggles_;
  std::vector<uint64_t> ones_;
  uint64_t cycles_ = 0;
};

// Writes the low `width` bits of `value` at bit `offset` of `bits` (width <= 64).
void put_bits(std::vector<uint64_t>& bits, uint32_t offset, uint32_t width, uint64_t value);

// A branch of one warp of width W (masks in the low W bits).
struct WideBranch {
  uint32_t warp = 0;
  uint64_t active = 0;
  uint64_t taken = 0;
};

// A global load of one warp of width W; address.size() == W, inactive lanes hold 0.
struct WideLoad {
  uint64_t active = 0;
  std::vector<uint64_t> address;
};

std::vector<WideBranch> adapt_branches(const std::vector<BranchEvent>& events, uint32_t width);
std::vector<WideLoad> adapt_loads(const std::vector<LoadEvent>& events, uint32_t width);
// The compactor loads of one compaction event: its threads as W-lane warps, 16 warps per load.
std::vector<std::vector<uint64_t>> compactor_loads(const CompactionEvent& event, uint32_t width);

struct UnitActivity {
  uint64_t events = 0;  // unit operations: branch votes, permutations, compactor loads, block selections
  uint64_t cycles = 0;  // clock cycles of the schedule; = events for the popular-block selector (per event)
  std::vector<PinFigures> pins;
};

UnitActivity majority_activity(const std::vector<BranchEvent>& branches, uint32_t width);
UnitActivity permutation_activity(const std::vector<BranchEvent>& branches, uint32_t width);
UnitActivity compactor_activity(const std::vector<CompactionEvent>& compactions, uint32_t width);
UnitActivity selector_activity(const std::vector<LoadEvent>& loads, uint32_t width);

// Rounds to 6 decimals and drops trailing zeros: 2/3 -> "0.666667", 1 -> "1", 1e-9 -> "0".
std::string format_figure(double value);

// {"events": N, "cycles": C, "pins": {...}} with one line per port, indented by `indent` spaces.
std::string unit_json(const UnitActivity& unit, uint32_t indent);

}  // namespace simtlm::cosim::activity
