// The work-distribution seam (docs/architecture.md, "Work sources"): what the Gpu dispatches to its SMs and
// what an SM's thread contexts start with, apart from the divergence unit that decides which of their
// threads issue. A WorkSource counts the kernel's units of work, says whether one more fits an SM's free
// resources, starts the contexts of a unit an SM took, and, for a task partition, gives a context's lanes
// their next tasks. Plain C++, one per kernel, owned by the Gpu; as MGPUSim's dispatchers and gem5's
// GPUDispatcher, it lives beside the compute unit, not inside it.
//
// Sources (make_work_source): the grid's CTAs (every mechanism but task mode), and a task partition per
// WPU, whose unit of work is one pseudo-CTA holding every hardware thread context of the WPU and whose
// tasks are the grid's threads, split evenly over the WPUs (robust-simd.txt; docs/robust-simd.md).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "hw/timing_kernel.hpp"
#include "models/ptx/functional.hpp"

namespace simtlm::hw {

// An SM's resources: its limits, and what the units of work resident on it hold.
struct SmOccupancy {
  uint32_t max_units = 0, max_contexts = 0, max_threads = 0, max_registers = 0, max_shared = 0;
  uint32_t units = 0, contexts = 0, threads = 0, registers = 0, shared = 0;
};

// What one unit of work holds on an SM while it is resident.
struct WorkFootprint {
  uint32_t contexts = 0;  // thread contexts (CTA warps)
  uint32_t threads = 0;
  uint32_t registers = 0;  // 32-bit registers of the whole unit
  uint32_t shared = 0;     // shared-memory bytes
};

class WorkSource {
 public:
  virtual ~WorkSource() = default;
  // Units of work of the kernel; the Gpu dispatches unit 0, 1, ... in order to the SM with room.
  virtual uint64_t units() const = 0;
  virtual WorkFootprint footprint() const = 0;
  virtual bool fits(const SmOccupancy& sm) const = 0;
  // Context `index` of a unit starts (`cta` is the unit's CTA context): its registers, and the lanes holding
  // a thread from the start (a task partition's hold none until given tasks).
  virtual ptx::LaneMask start_context(ptx::WarpContext& context, ptx::CtaContext& cta,
                                      uint32_t index) const = 0;
  // Tasks of unit `unit` not given to any lane yet (none for a grid CTA, whose threads are fixed at launch).
  virtual uint64_t tasks_left(uint64_t /*unit*/) const { return 0; }
  // The lowest lanes of `lanes` take the unit's next tasks in lane order, with fresh registers; returns the
  // lanes that took one (fewer than asked when the unit's tasks run out; none for a grid CTA).
  virtual ptx::LaneMask give_tasks(uint64_t /*unit*/, ptx::WarpContext& /*context*/,
                                   ptx::LaneMask /*lanes*/) {
    return 0;
  }
};

// Every CTA of the grid, each on the SM whose free resources it fits.
class GridCtas final : public WorkSource {
 public:
  explicit GridCtas(const TimingKernel& kernel) : k_(kernel) {}
  uint64_t units() const override { return k_.launch.grid.count(); }
  WorkFootprint footprint() const override;
  bool fits(const SmOccupancy& sm) const override;
  ptx::LaneMask start_context(ptx::WarpContext& context, ptx::CtaContext& cta, uint32_t index) const override;

 private:
  const TimingKernel& k_;
};

// Task mode: one unit per WPU (SM), holding `contexts` hardware thread contexts, and the grid's threads as
// tasks, WPU w taking tasks [T*w/W, T*(w+1)/W) of T over W.
class TaskPartition final : public WorkSource {
 public:
  TaskPartition(const TimingKernel& kernel, uint32_t wpus, uint32_t contexts);
  uint64_t units() const override { return next_.size(); }
  WorkFootprint footprint() const override { return {contexts_, contexts_, 0, 0}; }
  bool fits(const SmOccupancy& sm) const override { return sm.units == 0; }  // its contexts are the WPU's
  ptx::LaneMask start_context(ptx::WarpContext& context, ptx::CtaContext& cta, uint32_t index) const override;
  uint64_t tasks_left(uint64_t unit) const override { return end_[unit] - next_[unit]; }
  ptx::LaneMask give_tasks(uint64_t unit, ptx::WarpContext& context, ptx::LaneMask lanes) override;

 private:
  const TimingKernel& k_;
  const uint32_t contexts_;
  std::vector<uint64_t> next_, end_;  // per unit: its next task, and one past its last
};

}  // namespace simtlm::hw
