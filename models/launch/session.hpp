// One functional run of a launch file: load the PTX, validate the parameters against the kernel, set up
// global memory, run the grid, read back the outputs and check them against expectations and the host
// reference.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/progress.hpp"
#include "models/launch/host_reference.hpp"
#include "models/launch/launch.hpp"
#include "models/ptx/ir.hpp"
#include "models/ptx/parser.hpp"
#include "models/ptx/runner.hpp"

namespace simtlm::launch {

struct SessionOptions {
  uint64_t instruction_budget = 0;  // overrides the launch file's budget when non-zero
  // The host references live in a library that depends on this one, so the caller passes the lookup in.
  ReferenceFn (*find_reference)(const std::string& name) = nullptr;
  bool capture_printf = false;  // collect the kernel's printf output instead of writing it to stdout
  // Optional: sees every warp instruction of run() (ptx::RunOptions::observer).
  ptx::WarpObserver observer{};
  // --out-of-bounds: overrides the launch file's out_of_bounds when set.
  std::optional<ptx::OutOfBounds> out_of_bounds;
  // Branch and load overrides (herding), installed on every launch context of the run, functional or timing.
  ptx::ExecutionHooks hooks;
  // Optional: a progress display, told as CTAs complete (functional or timing; common/progress.hpp).
  std::shared_ptr<ProgressSink> progress;
  // Why the machine cannot hold a cooperative launch's whole grid at once ("" when it can): the command line
  // passes the machine's (sim::cooperative_limit), in both modes. Unset: no machine, no limit.
  std::function<std::string(const ptx::LaunchContext&)> cooperative_limit;
};

struct SessionResult {
  ptx::RunStats stats;
  std::map<std::string, std::vector<uint8_t>> buffers;  // final contents of every buffer
  std::vector<std::string> failures;                    // expect and reference mismatches, one report each
  bool expect_checked = false;
  bool reference_checked = false;
  double wall_seconds = 0;  // host time of the run itself
  std::string printf_output;
  std::vector<std::string> warnings;  // e.g. a __constant__ variable read before anything initialised it
  bool out_of_bounds_warn = false;    // warn mode: out_of_bounds counts accesses outside every allocation
  ptx::OutOfBoundsLog out_of_bounds;
  nlohmann::json launches = nlohmann::json::array();  // sequences: one entry per kernel launch
  bool ok() const { return failures.empty(); }
};

// A launch laid out in device memory: buffers initialised and allocated, module variables placed, the param
// buffer built. Every runner (functional, stack, timing) starts from one, so addresses agree between them.
struct DeviceImage {
  ptx::GlobalMemory memory;
  std::map<std::string, uint64_t> addresses;            // buffer name -> device address
  std::map<std::string, std::vector<uint8_t>> initial;  // buffer name -> initial contents
  ptx::LaunchContext context;                           // points into memory: the image is not movable
  // The final contents of every buffer of the launch.
  std::map<std::string, std::vector<uint8_t>> read_buffers(const Launch& launch) const;
};

// Makes `context` a cooperative launch (cudaLaunchCooperativeKernel): its grid workspace, allocated in
// `memory` on first use (`workspace` keeps it for a sequence's later launches), and the machine's limit,
// refused as a LaunchError at `where`.
void make_cooperative(ptx::LaunchContext& context, ptx::GlobalMemory& memory, uint64_t& workspace,
                      const SessionOptions& options, const std::string& where);

class Session {
 public:
  // Loads and validates everything that can be checked without running; throws LaunchError or ptx::PtxError.
  Session(Launch launch, SessionOptions options);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Runs the grid. Throws ptx::KernelError on a runtime fault of the kernel.
  SessionResult run();

  // A fresh device image of this launch (the parameters were validated by the constructor).
  std::unique_ptr<DeviceImage> prepare_device() const;
  // Checks result.buffers (the final contents of `image`) against the launch's expectations and host
  // reference, appending to result.failures. The reference runs on image.initial, which it overwrites.
  void verify(SessionResult& result, DeviceImage& image) const;
  // Thread-instruction budget of a run: the option, else the launch file's, else the runner's default.
  uint64_t instruction_budget() const;
  ProgressSink* progress() const { return options_.progress.get(); }

  const Launch& launch() const { return launch_; }
  const ptx::Module& module() const { return *module_; }
  const ptx::Function& kernel() const { return *kernel_; }
  // E.g. a __constant__ variable the kernel reads that nothing initialised.
  const std::vector<std::string>& warnings() const { return warnings_; }
  // Why the kernel cannot run (ptx::kernel_refusal, the check run() makes); empty when it can.
  std::vector<ptx::PtxError> refusals() const;

 private:
  [[noreturn]] void fail_at_key(const std::string& key, const std::string& message) const;

  Launch launch_;
  SessionOptions options_;
  std::unique_ptr<ptx::Module> module_;
  const ptx::Function* kernel_ = nullptr;
  ReferenceFn reference_ = nullptr;
  std::vector<std::string> warnings_;
};

// Checks result.buffers against the launch's expectations and the host reference (which runs on `initial`
// and overwrites it), appending to result.failures.
void verify_outputs(const Launch& launch, ReferenceFn reference, SessionResult& result, HostBuffers& initial);

// The out-of-bounds mode of a run: the option's override, else the launch file's.
ptx::OutOfBounds out_of_bounds_mode(const Launch& launch, const SessionOptions& options);

// Element-wise comparison of two buffers of one type: exact, or within tolerance_ulp for f32/f64. Returns an
// empty string when they match, else a report with the first mismatching indices, the count and the max ULP.
std::string compare_buffers(ptx::Type type, const std::vector<uint8_t>& actual,
                            const std::vector<uint8_t>& expected, uint32_t tolerance_ulp);

}  // namespace simtlm::launch
