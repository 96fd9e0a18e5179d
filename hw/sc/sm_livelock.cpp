// The SM's share of the timing model's livelock watch (docs/reliability.md, "Long runs and endless runs";
// the Gpu decides in gpu_livelock.cpp). Between two checks the SM notes which issue slots issued and counts
// the stores and atomics that changed a shared or global value (ptx::CtaContext::changed_writes); at a check
// it can append the architectural state of its resident CTAs: what the functional model's proof compares
// (models/ptx/livelock.hpp), with the divergence unit's state in place of the SIMT stacks.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "hw/sc/sm.hpp"

namespace simtlm::hw {

namespace {

void append_bytes(std::vector<uint64_t>& out, const uint8_t* bytes, size_t size) {
  out.push_back(size);
  for (size_t k = 0; k < size; k += 8) {
    uint64_t word = 0;
    std::memcpy(&word, bytes + k, std::min<size_t>(8, size - k));
    out.push_back(word);
  }
}

}  // namespace

void Sm::note_loop(const IssueSlot& w, uint32_t pc, const PartMasks& taken) {
  const Cta& cta = ctas_[w.cta];
  for (size_t i = 0; i < w.parts.size(); ++i) {
    if (taken[i]) loop_pc_[cta.contexts[w.parts[i].warp]] = pc;
  }
}

Sm::LivelockProbe Sm::livelock_probe() {
  LivelockProbe p;
  if (unit_has_state_ < 0) {  // asked once: a unit that can say, says so with no CTA resident too
    std::vector<uint64_t> scratch;
    unit_has_state_ = unit_->append_state(scratch) ? 1 : 0;
  }
  p.supported = !failed_ && unit_has_state_ == 1;
  for (uint32_t s = 0; s < issued_.size(); ++s) {
    const IssueSlot& w = slot(s);
    if (w.live) {
      // A slot that waits for other threads (a barrier, its CTA's compaction) moves when they do; any other
      // live slot that issued nothing may be about to (a long memory access): no proof this time.
      const bool waits_for_others = w.waits || timing_[s].at_barrier;
      p.any_issued = p.any_issued || issued_[s];
      p.all_issued = p.all_issued && (issued_[s] || waits_for_others);
    }
    issued_[s] = 0;
  }
  for (const Cta& cta : ctas_) p.changes += cta.ctx.changed_writes;
  return p;
}

void Sm::livelock_state(std::vector<uint64_t>& out) const {
  for (uint32_t c = 0; c < ctas_.size(); ++c) {
    const Cta& cta = ctas_[c];
    if (!cta.live) continue;
    out.push_back(uint64_t(c) << 32 | cta.warps_left);
    out.push_back(cta.ctx.linear_id);
    for (uint32_t id = 0; id < ptx::CtaBarriers::kIds; ++id) out.push_back(cta.barriers.arrived(id));
    for (uint32_t warp = 0; warp < cta.contexts.size() && warp < k_.warps_per_cta; ++warp) {
      if (!cta.barriers.waiting(warp)) continue;
      out.push_back(uint64_t(warp) << 32 | cta.barriers.wait_barrier(warp));
      out.push_back(uint64_t(cta.barriers.wait_pc(warp)) << 32 | cta.barriers.wait_lanes(warp));
    }
    append_bytes(out, cta.ctx.shared.data(), cta.ctx.shared.size());
    for (const uint32_t index : cta.contexts) {
      if (!context_used_[index]) continue;  // its warp finished
      const ptx::WarpContext& ctx = contexts_[index].ctx;
      out.push_back(uint64_t(index) << 32 | ctx.valid);
      out.push_back(ctx.exited);
      out.insert(out.end(), ctx.regs.begin(), ctx.regs.end());
      append_bytes(out, ctx.local.data(), ctx.local.size());
      for (const std::vector<uint8_t>& records : ctx.call_records)
        append_bytes(out, records.data(), records.size());
    }
  }
  for (uint32_t s = 0; s < timing_.size(); ++s) {
    const IssueSlot& w = slot(s);
    if (!w.live) continue;
    out.push_back(uint64_t(s) << 32 | w.pc);
    out.push_back(uint64_t(w.cta) << 8 | uint64_t(w.waits) << 1 | timing_[s].at_barrier);
    for (const Part& part : w.parts) out.push_back(uint64_t(part.warp) << 32 | part.mask);
  }
  // The SM checked that its unit can say (livelock_probe's `supported`) before it was asked.
  unit_->append_state(out);
}

std::string Sm::describe_livelock() const {
  std::string s;
  for (const Cta& cta : ctas_) {
    if (!cta.live) continue;
    const ptx::Dim3& c = cta.ctx.ctaid;
    s += fmt::format("\n  CTA ({},{},{}) on SM {}:", c.x, c.y, c.z, id_);
    for (uint32_t warp = 0; warp < cta.contexts.size(); ++warp) {
      const uint32_t index = cta.contexts[warp];
      s += fmt::format(" warp {}", warp);
      if (!context_used_[index]) {
        s += " had finished;";
      } else if (warp < k_.warps_per_cta && cta.barriers.waiting(warp)) {
        s += fmt::format(" waiting at barrier {} at {};", cta.barriers.wait_barrier(warp),
                         k_.where_pc(cta.barriers.wait_pc(warp)));
      } else if (loop_pc_[index] != ptx::kNoTarget) {
        s += " spinning in the loop closed at " + k_.where_pc(loop_pc_[index]) + ";";
      } else {
        s += " waiting for threads of its CTA to reconverge;";
      }
    }
    s.pop_back();
  }
  return s;
}

}  // namespace simtlm::hw
