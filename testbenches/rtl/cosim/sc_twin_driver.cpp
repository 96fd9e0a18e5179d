#include "testbenches/rtl/cosim/sc_twin_driver.hpp"

#include "Vmajority_unit_w32_sc.h"
#include "Vpopular_block_selector_w32_sc.h"
#include "Vpriority_encoder_compactor_w32_sc.h"
#include "Vslp_permutation_unit_w32_sc.h"

namespace simtlm::cosim {
namespace {

// Outputs of the combinational twins are read this many delta cycles after their inputs were written: one
// for the signal update, one for the twin's own evaluation.
constexpr size_t kPipelineDepth = 2;
constexpr uint32_t kAddressBits = 64;
// The selector twin is verilated with ROUNDS = 1: done rises this many edges after the edge sampling start.
const uint32_t kSelectorLatency = hw::PopularBlockSelector::latency_cycles(1);
constexpr unsigned kCompactorWarpBits = 4;  // log2 of the RTL's NWARPS = 16

void next_delta() {
  sc_core::wait(sc_core::SC_ZERO_TIME);
}

// Evaluates events[0..n) through a combinational twin, one delta cycle per event: `write(i)` applies the
// inputs of event i, `read(i)` collects the outputs of event i kPipelineDepth deltas later.
template <typename Write, typename Read>
void pipeline(size_t n, Write write, Read read) {
  if (n == 0) return;
  for (size_t i = 0; i < n + kPipelineDepth; ++i) {
    if (i < n) write(i);
    if (i >= kPipelineDepth) read(i - kPipelineDepth);
    if (i + 1 < n + kPipelineDepth) next_delta();
  }
}

}  // namespace

struct ScTwins::Signals {
  Signals()
      : permutation("permutation"),
        majority("majority"),
        compactor("compactor"),
        popular_block("popular_block") {
    permutation.clk(perm_clk);
    permutation.rst(perm_rst);
    permutation.wr_en(perm_wr_en);
    permutation.wr_warp(perm_wr_warp);
    permutation.wr_mask(perm_wr_mask);
    permutation.mode(perm_mode);
    permutation.warp(perm_warp);
    permutation.lane(perm_lane);
    permutation.logical_mask(perm_logical_mask);
    permutation.xor_mask(perm_xor_mask);
    permutation.home_lane(perm_home_lane);
    permutation.physical_mask(perm_physical_mask);

    majority.taken(maj_taken);
    majority.active(maj_active);
    majority.herd_taken(maj_herd_taken);
    majority.all_taken(maj_all_taken);
    majority.none_taken(maj_none_taken);
    majority.uniform(maj_uniform);

    compactor.clk(comp_clk);
    compactor.rst(comp_rst);
    compactor.load(comp_load);
    compactor.pending_in(comp_pending_in);
    compactor.pop(comp_pop);
    compactor.valid(comp_valid);
    compactor.lane_mask(comp_lane_mask);
    compactor.lane_warp(comp_lane_warp);

    popular_block.clk(pop_clk);
    popular_block.rst(pop_rst);
    popular_block.start(pop_start);
    popular_block.done(pop_done);
    popular_block.busy(pop_busy);
    popular_block.addr_in(pop_addr_in);
    popular_block.active(pop_active);
    popular_block.line_shift(pop_line_shift);
    popular_block.block(pop_block);
    popular_block.count(pop_count);
    popular_block.addr_out(pop_addr_out);
  }

  Vslp_permutation_unit_w32_sc permutation;
  sc_core::sc_signal<bool> perm_clk{"perm_clk"}, perm_rst{"perm_rst"}, perm_wr_en{"perm_wr_en"};
  sc_core::sc_signal<uint32_t> perm_wr_warp{"perm_wr_warp"}, perm_wr_mask{"perm_wr_mask"},
      perm_mode{"perm_mode"}, perm_warp{"perm_warp"}, perm_lane{"perm_lane"},
      perm_logical_mask{"perm_logical_mask"}, perm_xor_mask{"perm_xor_mask"},
      perm_home_lane{"perm_home_lane"}, perm_physical_mask{"perm_physical_mask"};

  Vmajority_unit_w32_sc majority;
  sc_core::sc_signal<uint32_t> maj_taken{"maj_taken"}, maj_active{"maj_active"};
  sc_core::sc_signal<bool> maj_herd_taken{"maj_herd_taken"}, maj_all_taken{"maj_all_taken"},
      maj_none_taken{"maj_none_taken"}, maj_uniform{"maj_uniform"};

  Vpriority_encoder_compactor_w32_sc compactor;
  sc_core::sc_signal<bool> comp_clk{"comp_clk"}, comp_rst{"comp_rst"}, comp_load{"comp_load"},
      comp_pop{"comp_pop"}, comp_valid{"comp_valid"};
  sc_core::sc_signal<sc_dt::sc_bv<kCompactorWarps * kScTwinWidth>> comp_pending_in{"comp_pending_in"};
  sc_core::sc_signal<uint32_t> comp_lane_mask{"comp_lane_mask"};
  sc_core::sc_signal<sc_dt::sc_bv<kScTwinWidth * kCompactorWarpBits>> comp_lane_warp{"comp_lane_warp"};

  Vpopular_block_selector_w32_sc popular_block;
  sc_core::sc_signal<bool> pop_clk{"pop_clk"}, pop_rst{"pop_rst"}, pop_start{"pop_start"},
      pop_done{"pop_done"}, pop_busy{"pop_busy"};
  sc_core::sc_signal<sc_dt::sc_bv<kScTwinWidth * kAddressBits>> pop_addr_in{"pop_addr_in"},
      pop_addr_out{"pop_addr_out"};
  sc_core::sc_signal<uint32_t> pop_active{"pop_active"}, pop_line_shift{"pop_line_shift"},
      pop_count{"pop_count"};
  sc_core::sc_signal<uint64_t> pop_block{"pop_block"};

  // Staging vectors reused across events (an sc_bv is costly to construct).
  sc_dt::sc_bv<kScTwinWidth * kAddressBits> addresses;
  sc_dt::sc_bv<kCompactorWarps * kScTwinWidth> pending;
};

ScTwins::ScTwins(const sc_core::sc_module_name& name) : sc_core::sc_module(name), signals_(new Signals()) {}

ScTwins::~ScTwins() = default;

void ScTwins::reset() {
  Signals& s = *signals_;
  s.perm_rst.write(true);
  s.comp_rst.write(true);
  s.pop_rst.write(true);
  next_delta();
  s.perm_clk.write(true);
  s.comp_clk.write(true);
  s.pop_clk.write(true);
  next_delta();
  s.perm_clk.write(false);
  s.comp_clk.write(false);
  s.pop_clk.write(false);
  s.perm_rst.write(false);
  s.comp_rst.write(false);
  s.pop_rst.write(false);
  next_delta();
}

void ScTwins::load_permutation_table(std::span<const uint32_t> xor_masks) {
  Signals& s = *signals_;
  for (size_t warp = 0; warp < xor_masks.size(); ++warp) {
    s.perm_wr_en.write(true);
    s.perm_wr_warp.write(static_cast<uint32_t>(warp));
    s.perm_wr_mask.write(xor_masks[warp]);
    next_delta();
    s.perm_clk.write(true);
    next_delta();
    s.perm_clk.write(false);
    s.perm_wr_en.write(false);
    next_delta();
  }
}

void ScTwins::set_permutation_mode(hw::PermutationMode mode) {
  signals_->perm_mode.write(static_cast<uint32_t>(mode));
  next_delta();
}

void ScTwins::vote(std::span<const BranchEvent> events, std::vector<hw::BranchVote>& out) {
  Signals& s = *signals_;
  out.resize(events.size());
  pipeline(
      events.size(),
      [&](size_t i) {
        s.maj_taken.write(events[i].taken);
        s.maj_active.write(events[i].active);
      },
      [&](size_t i) {
        out[i] = {.herd_taken = s.maj_herd_taken.read(),
                  .all_taken = s.maj_all_taken.read(),
                  .none_taken = s.maj_none_taken.read(),
                  .uniform = s.maj_uniform.read()};
      });
}

void ScTwins::permute(std::span<const BranchEvent> events, std::vector<uint64_t>& physical_masks) {
  Signals& s = *signals_;
  physical_masks.resize(events.size());
  pipeline(
      events.size(),
      [&](size_t i) {
        s.perm_warp.write(permutation_warp(events[i]));
        s.perm_logical_mask.write(events[i].active);
      },
      [&](size_t i) { physical_masks[i] = s.perm_physical_mask.read(); });
}

void ScTwins::select(std::span<const LoadEvent> events, uint32_t line_shift,
                     std::vector<hw::HerdedLoad>& out) {
  Signals& s = *signals_;
  out.resize(events.size());
  s.pop_line_shift.write(line_shift);
  // Per event: the inputs and start in one delta; then the edge that samples start and kSelectorLatency more
  // clock edges, two delta cycles each (the outputs after a rising edge are readable one delta after the
  // falling edge is written). The inputs stay applied until the next event, as the RTL's contract asks.
  for (size_t i = 0; i < events.size(); ++i) {
    for (uint32_t lane = 0; lane < kScTwinWidth; ++lane) {
      const uint64_t address = events[i].address[lane];
      s.addresses.set_word(2 * lane, static_cast<sc_dt::sc_digit>(address));
      s.addresses.set_word(2 * lane + 1, static_cast<sc_dt::sc_digit>(address >> 32));
    }
    s.pop_addr_in.write(s.addresses);
    s.pop_active.write(events[i].active);
    s.pop_start.write(true);
    next_delta();
    for (uint32_t edge = 0; edge <= kSelectorLatency; ++edge) {
      s.pop_clk.write(true);
      next_delta();
      s.pop_clk.write(false);
      s.pop_start.write(false);
      next_delta();
      if (s.pop_done.read() != (edge == kSelectorLatency) ||
          s.pop_busy.read() == (edge == kSelectorLatency)) {
        ++selector_handshake_errors_;
      }
    }
    hw::HerdedLoad& load = out[i];
    load.block = s.pop_block.read();
    load.count = s.pop_count.read();
    const auto& herded = s.pop_addr_out.read();
    for (uint32_t lane = 0; lane < kScTwinWidth; ++lane) {
      load.address[lane] = uint64_t{herded.get_word(2 * lane)} | uint64_t{herded.get_word(2 * lane + 1)}
                                                                     << 32;
    }
  }
}

void ScTwins::compact(std::span<const CompactionEvent> events,
                      std::vector<std::vector<hw::CompactedWarp>>& out) {
  Signals& s = *signals_;
  out.resize(events.size());
  // Each cycle: inputs with the clock low in one delta, the rising edge in the next; the twin's new outputs
  // are readable one delta after the edge, together with the falling edge.
  for (size_t i = 0; i < events.size(); ++i) {
    const std::vector<uint64_t>& masks = events[i].warp_masks;
    for (uint32_t warp = 0; warp < kCompactorWarps; ++warp) {
      s.pending.set_word(warp, warp < masks.size() ? static_cast<sc_dt::sc_digit>(masks[warp]) : 0);
    }
    s.comp_pending_in.write(s.pending);
    s.comp_load.write(true);
    next_delta();
    s.comp_clk.write(true);
    next_delta();
    s.comp_clk.write(false);
    s.comp_load.write(false);
    s.comp_pop.write(true);
    next_delta();
    out[i].clear();
    while (s.comp_valid.read()) {
      hw::CompactedWarp& warp = out[i].emplace_back();
      warp.lane_mask = s.comp_lane_mask.read();
      const auto& lane_warp = s.comp_lane_warp.read();
      for (uint32_t lane = 0; lane < kScTwinWidth; ++lane) {
        warp.source_warp[lane] = static_cast<uint8_t>(
            (lane_warp.get_word(lane * kCompactorWarpBits / 32) >> (lane * kCompactorWarpBits % 32)) & 0xf);
      }
      s.comp_clk.write(true);  // pop
      next_delta();
      s.comp_clk.write(false);
      next_delta();
    }
    s.comp_pop.write(false);
  }
}

}  // namespace simtlm::cosim
