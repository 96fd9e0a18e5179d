// The functional model: executes one warp instruction for the lanes of a given mask and reports what a
// timing model needs (branch outcomes, addresses, barrier arrival, exit). It never decides masks or time.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/ptx/ir.hpp"
#include "models/ptx/memory.hpp"
#include "models/ptx/zeroed_bytes.hpp"

namespace simtlm::ptx {

inline constexpr unsigned kWarpSize = 32;
using LaneMask = uint32_t;

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  // Saturates: a product past 2^64 must never wrap to a small count that passes a limit check.
  uint64_t count() const {
    uint64_t n = 0;
    return __builtin_mul_overflow(uint64_t(x) * y, uint64_t(z), &n) ? UINT64_MAX : n;
  }
};

// A runtime error of the simulated kernel; the message names kernel, CTA, thread, PC and source line.
class KernelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class BranchHook;
class LoadAddressHook;

// Overrides of branch directions and load addresses (models/ptx/hooks.hpp), for herding. Both null by
// default: a run without hooks costs one pointer test per conditional branch and per load.
struct ExecutionHooks {
  BranchHook* branch = nullptr;
  LoadAddressHook* load = nullptr;
};

// A texture object bound by the launch file (docs/launch-files.md, "Textures"): a buffer read through tex
// with point filtering, unnormalized coordinates and clamp addressing. The kernel receives its handle,
// texture_handle(index), as a .u64 parameter, as cudaTextureObject_t is.
struct TextureObject {
  uint64_t base = 0;             // global address of texel (0, 0, 0)
  uint32_t dims[3] = {1, 1, 1};  // width, height, depth in texels (unused axes 1)
  uint8_t ndims = 1;             // 1, 2 or 3: the geometry a tex instruction must name
  Type element = Type::u8;       // u8 s8 u16 s16 u32 s32 f32: one channel per texel
  std::string name;              // for messages
};
// Handles start at 1, as CUDA's do, so a zeroed parameter is never a texture.
constexpr uint64_t texture_handle(size_t index) {
  return uint64_t(index) + 1;
}

// Values fixed for a whole launch.
struct LaunchContext {
  const Module* module = nullptr;
  const Function* kernel = nullptr;
  Dim3 grid, block;
  uint32_t dynamic_shared_bytes = 0;
  std::vector<uint8_t> param_buffer;     // the kernel's .param block, laid out per Function::params
  GlobalMemory* global = nullptr;        // global and const variables and buffers
  std::vector<uint64_t> symbol_address;  // per Module::symbols: global/const absolute address (0 for others)
  std::vector<TextureObject> textures;   // handle texture_handle(i) is textures[i]
  uint32_t nsm = 1;
  // A cooperative launch's grid workspace (%envreg1:%envreg2, where cooperative_groups::this_grid() finds the
  // grid barrier); 0 for any other launch, so grid.sync() traps as it does under CUDA.
  uint64_t grid_workspace = 0;
  bool cooperative = false;            // every CTA resident at once (the functional runner interleaves them)
  std::string* printf_sink = nullptr;  // vprintf output goes here (nullptr: stdout)
  ExecutionHooks hooks;                // seen by every runner that executes through Executor
};

// Per CTA: shared memory and the CTA's coordinates.
struct CtaContext {
  Dim3 ctaid;
  uint64_t linear_id = 0;
  uint32_t smid = 0;
  std::vector<uint8_t> shared;  // static shared followed by dynamic (.extern) shared
  // Set by the timing model's livelock watch (hw/sc/sm_livelock.cpp): stores and atomics of this CTA's
  // threads that changed a shared or global byte count in changed_writes (an unchanged value does not).
  bool count_changed_writes = false;
  uint64_t changed_writes = 0;
};

// Per warp: registers (register-major: regs[reg * 32 + lane]), per-thread local frames and thread ids.
struct WarpContext {
  CtaContext* cta = nullptr;
  uint32_t warp_in_cta = 0;
  LaneMask valid = 0;   // lanes that hold a thread of the CTA
  LaneMask exited = 0;  // lanes whose thread ran exit or the kernel's ret (set by the executor)
  std::array<Dim3, kWarpSize> tid{};
  // Task mode (models/ptx/task_mode.hpp): each lane runs a thread of any CTA of the grid, named here.
  bool lanes_own_cta = false;
  std::array<Dim3, kWarpSize> lane_ctaid{};
  std::vector<uint64_t> regs;
  ZeroedBytes local;  // kWarpSize frames of Function::local_bytes each
  // Per lane, the records of its active calls of .funcs (models/ptx/executor_call.cpp), innermost last.
  std::array<std::vector<uint8_t>, kWarpSize> call_records;
  // Per lane, the entry PC of the function an indirect call runs (valid for the lanes of that call's step):
  // the runner and the timing model's stacks group the lanes by it (models/ptx/call_link.hpp, call_groups).
  std::array<uint32_t, kWarpSize> call_entry{};
  uint64_t clock = 0;  // value of %clock/%clock64, set by the runner or timing model
};

enum class StepKind : uint8_t { normal, branch, barrier, exit, memory };

struct MemAccess {
  Space space = Space::none;  // resolved space (generic resolved through its window)
  uint8_t bytes = 0;          // bytes per lane per element (vectors: element size * vec)
  bool is_store = false;
  bool is_atomic = false;
  std::array<uint64_t, kWarpSize>
      addr;  // per lane, valid only for lanes in WarpStep::active (not cleared: hot path)
};

struct WarpStep {
  StepKind kind = StepKind::normal;
  LaneMask active = 0;          // lanes that executed (mask & guard; a branch: the taken lanes)
  LaneMask taken = 0;           // branch: lanes that take it (guard, or the branch hook); others fall through
  uint32_t target = kNoTarget;  // branch target PC
  bool barrier_all_threads = true;  // bar.sync with no count operand
  uint32_t barrier_id = 0;
  uint32_t barrier_count = 0;  // thread count operand (0 = all threads of the CTA)
  MemAccess mem;               // kind == memory
  uint32_t hook_cycles = 0;    // cycles a branch or load hook charged (models/ptx/hooks.hpp)
};

class Executor {
 public:
  explicit Executor(const LaunchContext& launch);
  // Sets up a new warp's registers and local frames.
  void init_warp(WarpContext& warp, CtaContext& cta, uint32_t warp_in_cta) const;
  // Task mode: a warp whose lanes hold no thread yet; start_task() gives lane `lane` thread number `task` of
  // the grid (CTA task / threads per CTA), with fresh registers and local frame.
  void init_task_warp(WarpContext& warp, CtaContext& cta, uint32_t warp_in_cta) const;
  void start_task(WarpContext& warp, unsigned lane, uint64_t task) const;
  // Executes code[pc] for the lanes in mask. Throws KernelError on a runtime fault.
  WarpStep execute(WarpContext& warp, uint32_t pc, LaneMask mask) const;
  // Formats "kernel K, CTA (x,y,z), thread (x,y,z), PC n (PTX line l, file.cu:line)".
  std::string where(const WarpContext& warp, uint32_t pc, int lane) const;

 private:
  const LaunchContext& launch_;
};

}  // namespace simtlm::ptx
