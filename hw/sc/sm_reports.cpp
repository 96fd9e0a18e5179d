// What an SM says about itself in error reports: where a slot is, and what each resident warp waits for.
#include <fmt/format.h>

#include <string>

#include "hw/sc/sm.hpp"

namespace simtlm::hw {

std::string Sm::where(const IssueSlot& w, uint32_t pc) const {
  const ptx::Dim3& c = ctas_[w.cta].ctx.ctaid;
  std::string warps = std::to_string(w.parts.empty() ? 0 : w.parts[0].warp);
  for (size_t i = 1; i < w.parts.size(); ++i) {
    warps.push_back('+');  // not operator+: GCC 12 warns falsely on that (-Wrestrict)
    warps.append(std::to_string(w.parts[i].warp));
  }
  return "kernel " + k_.fn.name + ", CTA (" + std::to_string(c.x) + "," + std::to_string(c.y) + "," +
         std::to_string(c.z) + "), warp " + warps + ", SM " + std::to_string(id_) + ", " + k_.where_pc(pc);
}

std::string Sm::describe_warps() const {
  std::string s;
  for (uint32_t i = 0; i < timing_.size(); ++i) {
    const IssueSlot& w = slot(i);
    if (!w.live) continue;
    Stall why = Stall::no_warp;
    const uint64_t t = earliest_issue(i, last_eval_cycle_ == kNever ? 0 : last_eval_cycle_, &why);
    s += "\n  " + where(w, w.pc) + ", mask " + fmt::format("0x{:08x}", packed_lanes(w.parts)) + ": ";
    s += t == kNever ? std::string("waits on ") + stall_name(why) : "ready at cycle " + std::to_string(t);
  }
  // A resident CTA whose unfinished warps are in no issue slot (a unit that lost track of them).
  for (const Cta& cta : ctas_) {
    if (!cta.live || !cta.warps_left || !s.empty()) continue;
    const ptx::Dim3& c = cta.ctx.ctaid;
    s += fmt::format(
        "\n  kernel {}, CTA ({},{},{}): {} of its {} warps have not finished, and none is in an "
        "issue slot",
        k_.fn.name, c.x, c.y, c.z, cta.warps_left, cta.warps);
  }
  return s;
}

}  // namespace simtlm::hw
