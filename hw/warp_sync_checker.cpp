#include "hw/warp_sync_checker.hpp"

namespace simtlm::hw {

void WarpSyncChecker::start_cta(uint32_t index, uint32_t linear_id, uint32_t warps, uint64_t shared_bytes) {
  CtaState& c = cta(index);
  c.linear_id = linear_id;
  c.words.assign((shared_bytes + 3) / 4, Write{});
  c.warps.assign(warps, WarpState{});
}

void WarpSyncChecker::issue(uint32_t index, uint32_t warp, ptx::LaneMask part_mask, ptx::LaneMask live) {
  CtaState& c = cta(index);
  if (warp >= c.warps.size()) c.warps.resize(warp + 1);
  WarpState& w = c.warps[warp];
  if ((part_mask & live) != live) {
    w.split = true;
  } else if (w.split) {
    w.split = false;
    ++w.epoch;
  }
}

void WarpSyncChecker::synchronize(uint32_t index, uint32_t warp) {
  CtaState& c = cta(index);
  if (warp >= c.warps.size()) c.warps.resize(warp + 1);
  ++c.warps[warp].epoch;
}

WarpSyncChecker::Hazard* WarpSyncChecker::access(uint32_t index, uint32_t warp, uint32_t lane,
                                                 ptx::LaneMask part_mask, uint64_t address, uint32_t bytes,
                                                 bool is_store, uint32_t pc) {
  CtaState& c = cta(index);
  if (warp >= c.warps.size()) c.warps.resize(warp + 1);
  const uint64_t epoch = c.warps[warp].epoch;
  const uint64_t last = (address + (bytes ? bytes : 1) - 1) / 4;
  if (last >= c.words.size()) c.words.resize(last + 1);  // the executor checked the bounds; a test need not
  Hazard* first = nullptr;
  for (uint64_t word = address / 4; word <= last; ++word) {
    if (is_store) {
      c.words[word] = Write{warp, lane, pc, part_mask, epoch};
      continue;
    }
    const Write& w = c.words[word];
    if (w.warp != warp || w.lane == lane || w.epoch != epoch || (w.part >> lane & 1)) continue;
    ++total_;
    Hazard& h = reports_[{w.pc, pc}];
    if (h.count++ == 0) {
      h.write_pc = w.pc;
      h.read_pc = pc;
      h.cta_linear = c.linear_id;
      h.warp = warp;
      h.writer_lane = w.lane;
      h.reader_lane = lane;
      h.address = word * 4;
      first = &h;
    }
  }
  return first;
}

void WarpSyncChecker::reset() {
  ctas_.clear();
  reports_.clear();
  total_ = 0;
}

std::vector<WarpSyncChecker::Hazard> WarpSyncChecker::reports() const {
  std::vector<Hazard> out;
  for (const auto& [pcs, h] : reports_) out.push_back(h);
  return out;
}

}  // namespace simtlm::hw
