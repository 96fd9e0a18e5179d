// Drives a divergence unit of hw/divergence/ as the SM does, without SystemC: small kernels, a SlotHost that
// records what the unit asks of the SM, and helpers to hand the unit per-part outcomes.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "hw/divergence/divergence_unit.hpp"
#include "models/ptx/parser.hpp"

namespace simtlm::hw::testing {

// if (tid < 16) r = tid + 2; else r = tid + 1; — pcs: 0 mov, 1 setp, 2 @p bra, 3 add, 4 bra, 5 add, 6 ret.
inline const char* kIfElse = R"(.version 7.0
.target sm_75
.address_size 64
.visible .entry k()
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 bra TAKEN;
  add.u32 %r2, %r1, 1;
  bra.uni JOIN;
TAKEN:
  add.u32 %r2, %r1, 2;
JOIN:
  ret;
}
)";

// do { i++; } while (i < n); — pcs: 0 mov, 1 add, 2 setp, 3 @p bra 1, 4 ret.
inline const char* kLoop = R"(.version 7.0
.target sm_75
.address_size 64
.visible .entry k()
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  mov.u32 %r1, 0;
LOOP:
  add.u32 %r1, %r1, 1;
  setp.lt.u32 %p1, %r1, 4;
  @%p1 bra LOOP;
  ret;
}
)";

class RecordingHost final : public SlotHost {
 public:
  std::vector<std::string> events;
  void start_slot(uint32_t s, uint64_t cycle, Stall reason) override {
    events.push_back("start " + std::to_string(s) + " @" + std::to_string(cycle) + " " + stall_name(reason));
  }
  void stop_slot(uint32_t s) override { events.push_back("stop " + std::to_string(s)); }
  void delay_slot(uint32_t s, uint64_t cycle, Stall reason) override {
    events.push_back("delay " + std::to_string(s) + " @" + std::to_string(cycle) + " " + stall_name(reason));
  }
  void stack_request(uint32_t s, uint32_t pc, const MemRequest& r, bool wait) override {
    events.push_back(std::string(r.write ? "spill " : "fill ") + std::to_string(s) + " pc " +
                     std::to_string(pc) + " " + std::to_string(r.bytes) + "B" + (wait ? " wait" : ""));
  }
  void threads_exited(uint32_t cta, uint64_t count) override {
    events.push_back("exited cta " + std::to_string(cta) + " " + std::to_string(count));
  }
  bool at_barrier(uint32_t) const override { return false; }
  void warp_done(uint32_t cta, uint32_t warp) override {
    events.push_back("done cta " + std::to_string(cta) + " warp " + std::to_string(warp));
  }
  void check_deadlock(uint32_t) override {}
  void unit_failed(const std::string& message) override { events.push_back("failed " + message); }
  // Grid CTAs: no tasks (hw/work/work_source.hpp).
  uint64_t tasks_left(uint32_t) const override { return 0; }
  ptx::LaneMask give_tasks(uint32_t, uint32_t, ptx::LaneMask) override { return 0; }
};

// One kernel launched as the timing model would: parsed module, two warps per CTA.
struct Kernel {
  ptx::Module module;
  ptx::GlobalMemory global;
  ptx::LaunchContext launch;
  std::unique_ptr<TimingKernel> timing;
  Kernel(const char* text, uint32_t threads, const char* entry = nullptr)
      : Kernel(ptx::parse_ptx(text, "test.ptx"), threads, entry) {}
  Kernel(ptx::Module parsed, uint32_t threads, const char* entry) : module(std::move(parsed)) {
    launch.module = &module;
    launch.kernel = &module.functions[0];
    for (const ptx::Function& f : module.functions) {
      if (entry && f.name == entry) launch.kernel = &f;
    }
    launch.grid = ptx::Dim3{1, 1, 1};
    launch.block = ptx::Dim3{threads, 1, 1};
    launch.global = &global;
    timing = std::make_unique<TimingKernel>(launch, 0, 1'000'000);
  }
};

inline DivergenceParams params(Compaction mechanism) {
  DivergenceParams p;
  p.select(traits(unit_of(mechanism)).name);
  p.stack.discipline = Discipline::postdom;
  p.contexts = 4;
  p.ctas = 2;
  return p;
}

inline PartMasks per_part(std::initializer_list<ptx::LaneMask> masks) {
  PartMasks out{};
  size_t i = 0;
  for (ptx::LaneMask m : masks) out[i++] = m;
  return out;
}

inline std::string parts_of(const IssueSlot& s) {
  std::string out;
  for (const Part& p : s.parts) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%s%u:%08x", out.empty() ? "" : " ", p.warp, p.mask);
    out += buf;
  }
  return out;
}

}  // namespace simtlm::hw::testing
