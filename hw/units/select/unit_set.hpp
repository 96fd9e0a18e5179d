// Choosing, per unit, the C++ model or its Verilated RTL twin behind the same interface (`simtlm run --rtl`,
// `--rtl-check`).
//
// Usage:
//   const UnitSelection selection = parse_rtl_units("majority,popular_block", /*check=*/false);  // --rtl
//   uint64_t cycle = 0;  // the caller's cycle count; only read to date an RtlMismatch report
//   UnitSet units = make_unit_set(selection, /*simd_width=*/32, UnitOptions{}, &cycle);
//   const hw::BranchVote vote = units.majority->vote(taken, active);  // one call per warp-level event
// With selection.check (`--rtl-check`), every selected unit runs the C++ model and the twin on each call,
// returns the model's answer and throws RtlMismatch (cycle, unit, inputs, both outputs) at the first
// disagreement. Units not selected are the C++ models. Twins are Verilator --cc models called as plain C++:
// a call never enters the SystemC kernel, so a SystemC process can use a UnitSet at any cost it accepts.
//
// This header includes no Verilator or SystemC header (the twins live in this library's .cpp files).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "hw/units/lane_permutation.hpp"
#include "hw/units/majority_unit.hpp"
#include "hw/units/popular_block_selector.hpp"
#include "hw/units/priority_encoder_compactor.hpp"

namespace simtlm::hw {

// Which units run as RTL; `check` runs the C++ model next to each of them and compares.
struct UnitSelection {
  bool rtl_permutation = false;
  bool rtl_majority = false;
  bool rtl_compactor = false;
  bool rtl_popular_block = false;
  bool check = false;
  bool any_rtl() const { return rtl_permutation || rtl_majority || rtl_compactor || rtl_popular_block; }
};

// The names `--rtl` accepts, in this order: "permutation", "majority", "compactor", "popular_block".
inline constexpr const char* kRtlUnitNames[] = {"permutation", "majority", "compactor", "popular_block"};

// Parses a comma-separated list of unit names ("all" selects every unit; spaces around names are ignored;
// an empty list selects none). Throws std::invalid_argument naming the bad entry and the valid names, and
// when `check` is set with no unit selected (nothing to compare).
UnitSelection parse_rtl_units(const std::string& comma_list, bool check);
// "permutation=rtl majority=c++ compactor=rtl+check popular_block=c++": for logs and stats.
std::string describe(const UnitSelection& selection);

// Constructor arguments of the units besides the SIMD width. The RTL twins are synthesized with fixed values
// of some of them; asking a twin for another value is an error from make_unit_set.
struct UnitOptions {
  uint32_t permutation_warp_ids = 64;  // permutation table entries, a power of two; the RTL has 64
  MajorityTie majority_tie = MajorityTie::kNotTaken;
  uint32_t compactor_max_warps = 16;  // warps per CTA the compactor holds; the RTL holds 16
  uint32_t address_bits = 64;         // popular-block address width; the RTL twins are built with 64
};

struct UnitSet {
  std::unique_ptr<LanePermutation> permutation;
  std::unique_ptr<BranchMajority> majority;
  std::unique_ptr<WarpCompaction> compactor;
  std::unique_ptr<BlockSelection> popular_block;
};

// The four units as `selection` asks. `cycle_counter` (may be null) is read when a check fails, to say when.
// Throws std::invalid_argument for a width or option no model or twin exists for (twins: W = 8, 16, 32, 64).
UnitSet make_unit_set(const UnitSelection& selection, uint32_t simd_width, const UnitOptions& options,
                      const uint64_t* cycle_counter);

// A disagreement between the C++ model and the RTL twin of one unit.
class RtlMismatch : public std::runtime_error {
 public:
  RtlMismatch(std::optional<uint64_t> cycle, std::string unit, std::string inputs, std::string model_output,
              std::string rtl_output);
  std::optional<uint64_t> cycle() const { return cycle_; }
  const std::string& unit() const { return unit_; }
  const std::string& inputs() const { return inputs_; }
  const std::string& model_output() const { return model_output_; }
  const std::string& rtl_output() const { return rtl_output_; }

 private:
  std::optional<uint64_t> cycle_;
  std::string unit_;
  std::string inputs_;
  std::string model_output_;
  std::string rtl_output_;
};

// The Verilated twins alone (W = 8, 16, 32, 64), for testbenches and benchmarks.
std::unique_ptr<LanePermutation> make_rtl_permutation(uint32_t simd_width, uint32_t warp_ids = 64);
std::unique_ptr<BranchMajority> make_rtl_majority(uint32_t simd_width,
                                                  MajorityTie tie = MajorityTie::kNotTaken);
std::unique_ptr<WarpCompaction> make_rtl_compactor(uint32_t simd_width, uint32_t max_warps = 16);
std::unique_ptr<BlockSelection> make_rtl_popular_block(uint32_t simd_width);

// Checking wrappers: call `model` then `twin` with the same inputs, return the model's answer, throw
// RtlMismatch when the answers differ. Any two implementations can be compared (tests inject a wrong one).
// A model exception propagates before the twin is called, so both keep the same state.
std::unique_ptr<LanePermutation> make_checked_permutation(std::unique_ptr<LanePermutation> model,
                                                          std::unique_ptr<LanePermutation> twin,
                                                          const uint64_t* cycle_counter);
std::unique_ptr<BranchMajority> make_checked_majority(std::unique_ptr<BranchMajority> model,
                                                      std::unique_ptr<BranchMajority> twin,
                                                      const uint64_t* cycle_counter);
std::unique_ptr<WarpCompaction> make_checked_compactor(std::unique_ptr<WarpCompaction> model,
                                                       std::unique_ptr<WarpCompaction> twin,
                                                       const uint64_t* cycle_counter);
std::unique_ptr<BlockSelection> make_checked_popular_block(std::unique_ptr<BlockSelection> model,
                                                           std::unique_ptr<BlockSelection> twin,
                                                           const uint64_t* cycle_counter);

}  // namespace simtlm::hw
