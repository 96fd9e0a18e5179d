// The SM's side of the warp-synchronous check (hw/warp_sync_checker.hpp): what each part of an issue did to
// shared memory and to the warp's synchronization, and the warnings the run reports.
#include <fmt/format.h>

#include <bit>
#include <vector>

#include "hw/sc/sm.hpp"

namespace simtlm::hw {

void Sm::check_warp_sync(const IssueSlot& w, const Part& part, uint32_t pc, const ptx::WarpStep& step) {
  const ptx::Op op = k_.fn.code[pc].op;
  if (op == ptx::Op::bar || op == ptx::Op::bar_warp) {
    if (step.active || op == ptx::Op::bar_warp) warp_sync_->synchronize(w.cta, part.warp);
    return;
  }
  if (step.kind != ptx::StepKind::memory || step.mem.space != ptx::Space::shared || step.mem.is_atomic)
    return;
  for (ptx::LaneMask m = step.active; m; m &= m - 1) {
    const auto lane = static_cast<uint32_t>(std::countr_zero(m));
    WarpSyncChecker::Hazard* h = warp_sync_->access(w.cta, part.warp, lane, part.mask, step.mem.addr[lane],
                                                    step.mem.bytes, step.mem.is_store, pc);
    if (!h) continue;
    const ptx::Dim3& c = ctas_[w.cta].ctx.ctaid;
    h->kernel = k_.fn.name;
    h->message = fmt::format(
        "warp-synchronous code under compaction: in kernel {}, CTA ({},{},{}), warp {}, lane {} read the "
        "shared "
        "word at 0x{:x} that lane {} of its warp wrote at {}, with no barrier or __syncwarp between, while "
        "{} ran the two lanes in different warps; the read is at {}",
        k_.fn.name, c.x, c.y, c.z, part.warp, lane, h->address, h->writer_lane, k_.where_pc(h->write_pc),
        p_.divergence.traits().name, k_.where_pc(pc));
  }
}

std::vector<WarpSyncChecker::Hazard> Sm::warp_sync_hazards() const {
  std::vector<WarpSyncChecker::Hazard> out = warp_sync_done_;
  if (!warp_sync_) return out;
  for (WarpSyncChecker::Hazard& h : warp_sync_->reports()) out.push_back(std::move(h));
  return out;
}

}  // namespace simtlm::hw
