// A launch sequence: a real application's host-side launch order (kernels, host loops with their index i,
// loops until a device value says stop, host writes between kernels) over one device image whose buffers
// and module variables persist from kernel to kernel.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "models/launch/launch.hpp"
#include "models/launch/session.hpp"
#include "models/ptx/cfg.hpp"
#include "models/ptx/ir.hpp"

namespace simtlm::launch {

// Host steps of one run: each executed `set:` step and each finished iteration of a `repeat:` or `loop:`.
// Each counts as one thread instruction against the run's budget (budget:, --budget), and a run takes at most
// this many whatever its budget, so a host loop without kernels ends in seconds (docs/reliability.md).
inline constexpr uint64_t kMaxHostSteps = 10'000'000;

// One kernel launch of a sequence, ready to run: its context points into the sequence's device memory.
struct PlannedLaunch {
  const Step* step = nullptr;
  uint64_t index = 0;     // 0, 1, 2, ... in launch order
  int64_t iteration = 0;  // i of the innermost host loop (0 outside loops)
  const ptx::Module* module = nullptr;
  const ptx::Function* kernel = nullptr;
  const ptx::Cfg* cfg = nullptr;
  std::unique_ptr<ptx::LaunchContext> context;  // stable address for the runners
  // {step, kernel, iteration, grid, block, shared_bytes, line}: the head of the launch's stats entry.
  nlohmann::json describe() const;
};

class SequenceSession {
 public:
  // Loads every module, resolves every kernel and checks parameters, symbols and outputs; throws LaunchError
  // or ptx::PtxError.
  SequenceSession(Launch launch, SessionOptions options);
  ~SequenceSession();
  SequenceSession(const SequenceSession&) = delete;
  SequenceSession& operator=(const SequenceSession&) = delete;

  // Sets up device memory: buffers, every module's variables, symbols: entries. Starts the walk.
  void reset();
  // Performs host writes and loop tests up to the next kernel launch and returns it; nullptr after the last.
  // Throws LaunchError for a bad geometry, a parameter out of range or a loop that exceeded max.
  std::unique_ptr<PlannedLaunch> next();
  // The final buffers and symbols (outputs and every buffer), checked against expect and the reference.
  void finish(SessionResult& result);

  // Runs the whole sequence on the functional model. Throws ptx::KernelError naming the launch.
  SessionResult run();

  const Launch& launch() const { return launch_; }  // with the symbol views (with_symbol_views)
  const ptx::Module& module() const { return *modules_.at(launch_.ptx.string()); }
  uint64_t instruction_budget() const;
  // Thread instructions the kernels ran (the runners report them with charge_kernel) and host steps taken.
  void charge_kernel(uint64_t thread_instructions) { kernel_instructions_ += thread_instructions; }
  uint64_t host_steps() const { return host_steps_; }
  // What the next kernel may still run: the budget less the kernels' thread instructions and the host steps.
  uint64_t budget_left() const;
  ProgressSink* progress() const { return options_.progress.get(); }
  ptx::GlobalMemory& memory() { return *memory_; }
  const std::vector<std::string>& warnings() const { return warnings_; }
  // Why kernels the file launches cannot run (ptx::kernel_refusal, the check each launch of run() makes),
  // in the order of their first launch step; empty when every one can.
  std::vector<ptx::PtxError> refusals() const;
  size_t kernel_count() const { return kernels_.size(); }  // distinct kernels the file launches
  // Those kernels with their modules, in the order of their first launch step.
  std::vector<std::pair<const ptx::Module*, const ptx::Function*>> launched_kernels() const {
    std::vector<std::pair<const ptx::Module*, const ptx::Function*>> out;
    for (const Resolved& r : kernels_) out.emplace_back(r.module, r.kernel);
    return out;
  }

 private:
  struct Frame {
    const std::vector<Step>* steps = nullptr;
    size_t next = 0;
    const Step* owner = nullptr;  // repeat, loop or for; nullptr for the top level
    uint64_t iteration = 0;
    int64_t value = 0;  // for: the loop variable
  };
  struct Resolved {
    const ptx::Module* module = nullptr;
    const ptx::Function* kernel = nullptr;
    const std::vector<uint64_t>* symbol_address = nullptr;
  };
  void resolve_steps(const std::vector<Step>& steps);
  void apply_set(const SetSpec& set);
  // sequence_host.cpp: the expressions' scope at the walk's position (i, the for variables, device reads),
  // a 2-D copy, and a for loop's entry and end of body (false: the loop is done).
  ExpressionScope scope() const;
  int64_t read_element(const std::string& name, int64_t index, std::string& error) const;
  void apply_copy2d(const Copy2dSpec& copy);
  void enter_for(const Step& loop);
  bool continue_for(Frame& frame);
  bool until_holds(const Step& loop) const;
  // The buffer or module variable `name` (of the file's module): address and element spec.
  std::pair<uint64_t, BufferSpec> data_named(const std::string& name, uint32_t line,
                                             const std::string& key) const;
  std::unique_ptr<PlannedLaunch> plan(const Step& step);
  [[noreturn]] void fail(uint32_t line, const std::string& message) const;
  // Counts one host step at `line` (what: "set", "repeat" or "loop"); fails past the budget or kMaxHostSteps.
  void host_step(uint32_t line, const char* what);

  Launch launch_;
  SessionOptions options_;
  std::map<std::string, std::unique_ptr<ptx::Module>> modules_;  // by PTX path
  std::map<const ptx::Function*, std::unique_ptr<ptx::Cfg>> cfgs_;
  std::map<const Step*, Resolved> resolved_;
  std::vector<Resolved> kernels_;  // each launched kernel once, in the order of the steps
  ReferenceFn reference_ = nullptr;
  // Device state of a run.
  std::unique_ptr<ptx::GlobalMemory> memory_;
  std::map<std::string, uint64_t> addresses_;
  std::map<std::string, std::vector<uint8_t>> initial_;
  std::map<std::string, std::vector<uint64_t>> symbol_address_;  // by PTX path
  std::set<std::string> host_written_;                           // variables of the file's module
  std::set<std::string> warned_;
  std::vector<std::string> warnings_;
  std::vector<Frame> frames_;
  uint64_t grid_workspace_ = 0;  // cooperative launches' (make_cooperative), allocated at the first
  uint64_t launches_ = 0;
  uint64_t host_steps_ = 0;
  uint64_t kernel_instructions_ = 0;
};

// The statistics document of a functional sequence run: totals under the single-launch keys plus launches[].
nlohmann::json sequence_stats_json(const SequenceSession& session, const SessionResult& result,
                                   const ptx::RunStats& totals);

}  // namespace simtlm::launch
