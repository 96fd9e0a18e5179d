// Verilated (--cc) twins of the hw/units models, behind the same interfaces. One template per unit; the
// Verilated class fixes the SIMD width. make_unit_set() (unit_set.hpp) instantiates them for `--rtl`; the
// equivalence tests in testbenches/rtl/ use them directly. This header needs the Verilated classes and
// verilated.h, so only .cpp files include it: unit_set.hpp is the header the rest of the simulator uses.
#pragma once

#include <algorithm>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>

#include "hw/units/lane_permutation.hpp"
#include "hw/units/majority_unit.hpp"
#include "hw/units/popular_block_selector.hpp"
#include "hw/units/priority_encoder_compactor.hpp"
#include "hw/units/select/port_bits.hpp"
#include "hw/units/width.hpp"

namespace simtlm::hw::rtl {

// The Verilated models are single-threaded, but a default VerilatedContext sizes its thread pool to the
// host's cores and starts the extra workers with the first model. The timing driver forks its simulation
// child after the twins are built, and a worker that is still starting then can hold the sanitizer
// allocator's lock in the fork: the child waits for it forever (seen in the ASan build, which has no fork
// handler for that lock).
class SingleThreadContext : public VerilatedContext {
 public:
  SingleThreadContext() { threads(1); }
};

// Rising edge with the inputs already applied (Verilator samples them at the eval that sees the edge), then
// the falling edge, so the clock rests low and the outputs are settled for the state after the edge.
template <typename V>
void clock_edge(V& top) {
  top.clk = 1;
  top.eval();
  top.clk = 0;
  top.eval();
}

template <typename V>
class RtlLanePermutation final : public hw::LanePermutation {
 public:
  RtlLanePermutation(uint32_t width, uint32_t num_warp_ids = 64)
      : width_(width), num_warp_ids_(num_warp_ids), top_(std::make_unique<V>(&context_)) {
    top_->rst = 1;
    clock_edge(*top_);
    top_->rst = 0;
  }
  void set_mode(hw::PermutationMode mode) override { top_->mode = static_cast<uint8_t>(mode); }
  void load(uint32_t warp, uint32_t xor_mask) override {
    check_warp(warp);
    if (xor_mask >= width_) throw std::invalid_argument("XOR mask does not fit the SIMD width");
    top_->wr_en = 1;
    top_->wr_warp = warp;
    top_->wr_mask = xor_mask;
    clock_edge(*top_);
    top_->wr_en = 0;
  }
  uint32_t xor_mask(uint32_t warp) override {
    read(warp);
    return top_->xor_mask;
  }
  uint32_t home_lane(uint32_t warp, uint32_t lane) override {
    if (lane >= width_) throw std::out_of_range("lane outside the warp");
    top_->lane = lane;
    read(warp);
    return top_->home_lane;
  }
  uint64_t permute_mask(uint32_t warp, uint64_t logical_mask) override {
    top_->logical_mask = logical_mask & hw::lane_mask_of(width_);
    read(warp);
    return top_->physical_mask;
  }

 private:
  void check_warp(uint32_t warp) const {
    if (warp >= num_warp_ids_) throw std::out_of_range("warp id outside the permutation table");
  }
  void read(uint32_t warp) {
    check_warp(warp);
    top_->warp = warp;
    top_->eval();
  }

  uint32_t width_;
  uint32_t num_warp_ids_;
  SingleThreadContext context_;
  std::unique_ptr<V> top_;
};

template <typename V>
class RtlMajority final : public hw::BranchMajority {
 public:
  explicit RtlMajority(uint32_t width)
      : lanes_(hw::lane_mask_of(width)), top_(std::make_unique<V>(&context_)) {}
  hw::BranchVote vote(uint64_t taken, uint64_t active) override {
    top_->taken = taken & lanes_;
    top_->active = active & lanes_;
    top_->eval();
    return {.herd_taken = top_->herd_taken != 0,
            .all_taken = top_->all_taken != 0,
            .none_taken = top_->none_taken != 0,
            .uniform = top_->uniform != 0};
  }

 private:
  uint64_t lanes_;
  SingleThreadContext context_;
  std::unique_ptr<V> top_;
};

// The RTL holds up to kMaxWarps warps (its NWARPS parameter, 16); `max_warps` can narrow that limit so the
// twin rejects what a C++ model built with the same argument rejects.
template <typename V>
class RtlCompactor final : public hw::WarpCompaction {
 public:
  static constexpr uint32_t kMaxWarps = 16;
  static constexpr unsigned kWarpIndexBits = 4;

  explicit RtlCompactor(uint32_t width, uint32_t max_warps = kMaxWarps)
      : width_(width), max_warps_(max_warps), top_(std::make_unique<V>(&context_)) {
    if (max_warps == 0 || max_warps > kMaxWarps) {
      throw std::invalid_argument("the RTL compactor holds 1 to " + std::to_string(kMaxWarps) +
                                  " warps, not " + std::to_string(max_warps));
    }
    top_->rst = 1;
    clock_edge(*top_);
    top_->rst = 0;
  }
  void load(std::span<const uint64_t> warp_masks) override {
    if (warp_masks.size() > max_warps_) {
      throw std::invalid_argument(std::to_string(warp_masks.size()) + " warps exceed the RTL compactor's " +
                                  std::to_string(max_warps_));
    }
    for (uint32_t warp = 0; warp < kMaxWarps; ++warp) {
      const uint64_t mask = warp < warp_masks.size() ? warp_masks[warp] : 0;
      put_bits(top_->pending_in, warp * width_, width_, mask);
    }
    top_->load = 1;
    clock_edge(*top_);
    top_->load = 0;
  }
  // Inputs change only in load() and next(), which end with a settled clock edge: the outputs are current.
  bool done() override { return top_->valid == 0; }
  hw::CompactedWarp next() override {
    hw::CompactedWarp out = peek();
    top_->pop = 1;
    clock_edge(*top_);
    top_->pop = 0;
    return out;
  }
  // The outputs without popping: what a stalled consumer sees.
  hw::CompactedWarp peek() {
    hw::CompactedWarp out;
    out.lane_mask = get_bits(top_->lane_mask, 0, width_);
    for (uint32_t lane = 0; lane < width_; ++lane) {
      out.source_warp[lane] =
          static_cast<uint8_t>(get_bits(top_->lane_warp, lane * kWarpIndexBits, kWarpIndexBits));
    }
    return out;
  }
  // A clock edge with neither load nor pop: the state must hold.
  void idle_cycle() { clock_edge(*top_); }

 private:
  uint32_t width_;
  uint32_t max_warps_;
  SingleThreadContext context_;
  std::unique_ptr<V> top_;
};

// The selector is pipelined (rtl/popular_block_selector.v): select() applies the inputs with `start`, clocks
// the edge that samples start and then exactly latency_cycles(rounds) edges, and checks that done rises after
// the last of them and not before (std::logic_error otherwise, a broken handshake rather than a wrong
// answer). The inputs stay applied afterwards, as the RTL's contract asks, so the outputs hold until the next
// select().
template <typename V>
class RtlBlockSelector final : public hw::BlockSelection {
 public:
  // `rounds` is the ROUNDS parameter V was verilated with.
  RtlBlockSelector(uint32_t width, uint32_t address_bits, uint32_t rounds = 1)
      : width_(width),
        address_bits_(address_bits),
        latency_(hw::PopularBlockSelector::latency_cycles(rounds)),
        top_(std::make_unique<V>(&context_)) {
    top_->rst = 1;
    clock_edge(*top_);
    top_->rst = 0;
    if (top_->done || top_->busy || top_->count)
      throw std::logic_error("popular_block_selector: reset failed");
  }
  hw::HerdedLoad select(std::span<const uint64_t> address, uint64_t active, uint32_t line_shift) override {
    if (address.size() != width_) throw std::invalid_argument("one address per lane expected");
    if (line_shift >= address_bits_) throw std::invalid_argument("line shift must be below the address bits");
    for (uint32_t lane = 0; lane < width_; ++lane) {
      put_bits(top_->addr_in, lane * address_bits_, address_bits_, address[lane]);
    }
    top_->active = active & hw::lane_mask_of(width_);
    top_->line_shift = line_shift;
    top_->start = 1;
    clock_edge(*top_);
    top_->start = 0;
    for (uint32_t edge = 1; edge <= latency_; ++edge) {
      if (top_->done || !top_->busy) handshake_error(edge - 1);
      clock_edge(*top_);
    }
    if (!top_->done || top_->busy) handshake_error(latency_);
    return outputs();
  }
  // What the unit shows now (valid while done = 1).
  hw::HerdedLoad outputs() const {
    hw::HerdedLoad out;
    out.block = get_bits(top_->block, 0, address_bits_);
    out.count = static_cast<uint32_t>(top_->count);
    for (uint32_t lane = 0; lane < width_; ++lane) {
      out.address[lane] = get_bits(top_->addr_out, lane * address_bits_, address_bits_);
    }
    return out;
  }
  bool done() const { return top_->done != 0; }
  // A clock edge without start: a finished selection must hold its outputs and done.
  void idle_cycle() { clock_edge(*top_); }
  uint32_t latency() const { return latency_; }

 private:
  [[noreturn]] void handshake_error(uint32_t edge) const {
    throw std::logic_error("popular_block_selector: done=" + std::to_string(top_->done) +
                           " busy=" + std::to_string(top_->busy) + " after edge " + std::to_string(edge) +
                           " of " + std::to_string(latency_) + " (edge 0 samples start)");
  }

  uint32_t width_;
  uint32_t address_bits_;
  uint32_t latency_;
  SingleThreadContext context_;
  std::unique_ptr<V> top_;
};

}  // namespace simtlm::hw::rtl
