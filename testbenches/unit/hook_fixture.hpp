// Test hooks and the host model of testbenches/launch/herding_hooks.cu under them, shared by the functional
// (testbenches/unit/test_ptx_hooks.cpp) and timing (testbenches/timing/test_timing_hooks.cpp) tests of the
// branch-outcome and load-address hooks (models/ptx/hooks.hpp).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/ptx/hooks.hpp"
#include "models/ptx/ir.hpp"

namespace simtlm::ptx::hook_test {

inline std::filesystem::path herding_hooks_launch() {
  return std::filesystem::path(SIMTLM_SOURCE_DIR) / "testbenches/launch/herding_hooks.yaml";
}

// herding_hooks.yaml: n = 1000 threads of 4 CTAs of 256 do work; out has 1024 entries.
inline constexpr int kThreads = 1000;
inline constexpr uint32_t kBlock = 256;
inline constexpr uint32_t kBoundsLine = 8;  // if (i >= n) return;
inline constexpr uint32_t kGatherLine = 9;  // int v = data[index[i]];  (index load, then the gather)
inline constexpr uint32_t kDataLine = 10;   // if (v & 1): nvcc branches to the even side (taken = v even)

// The PC of the conditional branch on CUDA line `line`.
inline uint32_t conditional_branch_pc(const Function& kernel, uint32_t line) {
  for (uint32_t pc = 0; pc < kernel.code.size(); ++pc) {
    const Instr& in = kernel.code[pc];
    if (in.op == Op::bra && in.guard != kNoReg && in.loc_line == line) return pc;
  }
  throw std::runtime_error("no conditional branch on line " + std::to_string(line));
}

// The PCs of the global loads on CUDA line `line`, in code order.
inline std::vector<uint32_t> global_load_pcs(const Function& kernel, uint32_t line) {
  std::vector<uint32_t> pcs;
  for (uint32_t pc = 0; pc < kernel.code.size(); ++pc) {
    const Instr& in = kernel.code[pc];
    if (in.op == Op::ld && in.space == Space::global && in.loc_line == line) pcs.push_back(pc);
  }
  return pcs;
}

// Forces the branch at one PC taken (every lane of the mask) or not taken, and records every call.
class ForceBranch : public BranchHook {
 public:
  struct Call {
    uint32_t pc;
    LaneMask active, taken;
    WarpIdentity warp;
  };
  ForceBranch(uint32_t pc, bool taken) : pc_(pc), taken_(taken) {}
  BranchDecision branch_taken(const BranchEvent& event) override {
    calls.push_back({event.pc, event.active, event.taken, event.warp});
    if (event.pc != pc_) return event.taken;
    return taken_ ? ~LaneMask{0} : 0;  // all 32 bits: the executor must drop the lanes outside the mask
  }
  std::vector<Call> calls;

 private:
  uint32_t pc_;
  bool taken_;
};

// Sends every active lane of a global load to the lowest active lane's address (at one PC, or at every global
// load), the extreme of data herding; records every call with the addresses as the hook received them.
class RedirectToFirstLane : public LoadAddressHook {
 public:
  struct Call {
    uint32_t pc;
    Space space;
    LaneMask active;
    uint8_t bytes;
    WarpIdentity warp;
    LaneAddresses address;
  };
  explicit RedirectToFirstLane(std::optional<uint32_t> pc = std::nullopt) : pc_(pc) {}
  uint32_t rewrite_load(const LoadEvent& event, LaneAddresses& address) override {
    calls.push_back({event.pc, event.space, event.active, event.bytes, event.warp, address});
    if (event.space != Space::global || (pc_ && event.pc != *pc_)) return 0;
    const uint64_t first = address[std::countr_zero(event.active)];
    for (LaneMask m = event.active; m; m &= m - 1) address[std::countr_zero(m)] = first;
    return 0;
  }
  std::vector<Call> calls;

 private:
  std::optional<uint32_t> pc_;
};

// Rewrites the active lanes of the load at one PC to a fixed address.
class RedirectTo : public LoadAddressHook {
 public:
  RedirectTo(uint32_t pc, uint64_t address) : pc_(pc), address_(address) {}
  uint32_t rewrite_load(const LoadEvent& event, LaneAddresses& address) override {
    if (event.pc != pc_) return 0;
    for (LaneMask m = event.active; m; m &= m - 1) address[std::countr_zero(m)] = address_;
    return 0;
  }

 private:
  uint32_t pc_;
  uint64_t address_;
};

template <class T>
std::vector<T> as(const std::vector<uint8_t>& bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

// How a run overrides the kernel: the data branch forced one way, and/or every global load herded to the
// lowest active lane of its warp.
struct Override {
  std::optional<bool> data_branch_taken;
  bool loads_to_first_lane = false;
};

// out of herding_hooks.cu from the initial data and index under `o`, computed on the host.
inline std::vector<int32_t> expected_out(const std::vector<int32_t>& data, const std::vector<int32_t>& index,
                                         Override o = {}) {
  std::vector<int32_t> out(1024, 0);
  for (int i = 0; i < kThreads; ++i) {
    const int source = o.loads_to_first_lane ? i / 32 * 32 : i;  // every warp's lane 0 is active
    const int32_t v = data.at(size_t(index.at(size_t(source))));
    const bool even_side = o.data_branch_taken.value_or((v & 1) == 0);
    out[size_t(i)] = even_side ? v - 1000 : v * 3 + 1;
  }
  return out;
}

// The lanes of warp `warp` of CTA `cta` whose thread index i passes `predicate(i)`.
template <class P>
LaneMask lanes_where(uint64_t cta, uint32_t warp, P predicate) {
  LaneMask m = 0;
  for (unsigned lane = 0; lane < kWarpSize; ++lane) {
    const int64_t i = int64_t(cta * kBlock + warp * kWarpSize + lane);
    if (predicate(i)) m |= LaneMask{1} << lane;
  }
  return m;
}

}  // namespace simtlm::ptx::hook_test
