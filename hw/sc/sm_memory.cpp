// The Sm's memory-issue path: shared-memory bank conflicts, coalescing global and local accesses into
// requests for the LoadStoreUnit, and the responses that make destination registers ready again.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <string>

#include "hw/sc/sm.hpp"

namespace simtlm::hw {

namespace {

constexpr uint64_t kLocalBase =
    0x7c00'0000'0000ull;  // timing addresses of local memory (values stay functional)

// Only the sectors the lanes touch travel; the segment is the unit of coalescing.
uint64_t sent_address(const CoalescedRequest& r) {
  return r.sectors ? r.base + std::countr_zero(r.sectors) * 32 : r.base;
}
const std::vector<uint8_t> kNoByteEnables;

uint32_t sent_bytes(const CoalescedRequest& r) {
  const uint32_t lo = std::countr_zero(r.sectors) * 32;
  const uint32_t hi = (32 - std::countl_zero(r.sectors)) * 32;
  return r.sectors ? std::min(hi, r.bytes) - lo : r.bytes;
}

}  // namespace

void Sm::memory(uint32_t slot, uint32_t pc, const Issued& issued, uint64_t now) {
  const IssueSlot& w = unit_->slots()[slot];
  const ptx::MemAccess& acc = issued.mem;
  const ptx::LaneMask active = issued.mem_lanes;
  if (!active) return;
  const IssueInfo& info = k_.info[pc];
  const PipeParams& pipe = p_.pipes[static_cast<size_t>(OpClass::memory)];
  const ptx::Instr& in = k_.fn.code[pc];
  Cta& cta = ctas_[w.cta];
  if (acc.is_atomic) ++stats_.atomics;
  if (acc.space == ptx::Space::shared) {
    ++stats_.shared_instructions;
    const uint32_t degree = shared_bank_conflict_degree(acc.addr.data(), acc.bytes, active, p_.shared_banks);
    stats_.shared_conflict_cycles += degree - 1;
    unit_free_[static_cast<size_t>(OpClass::memory)] = now + std::max(pipe.initiation_interval, degree);
    for (const Part& part : w.parts) {
      std::vector<uint64_t>& ready = context(cta, part.warp).reg_ready;
      for (uint8_t i = 0; i < info.ndst; ++i) ready[info.dst[i]] = now + p_.shared_latency + degree - 1;
    }
    return;
  }
  const bool local = acc.space == ptx::Space::local;
  if (!local && acc.space != ptx::Space::global) {
    ++stats_.other_memory_instructions;  // param and const: the constant cache, at the pipeline latency
    return;
  }
  const uint64_t* addresses = acc.addr.data();
  std::array<uint64_t, ptx::kWarpSize> remapped;
  if (local) {
    for (ptx::LaneMask m = active; m; m &= m - 1) {
      const auto k = static_cast<unsigned>(std::countr_zero(m));
      const uint64_t who = issued.local_slot_lane[k];
      remapped[k] =
          local_address(static_cast<uint32_t>(who >> 8), static_cast<uint32_t>(who & 0xff), acc.addr[k]);
    }
    addresses = remapped.data();
  }
  requests_.clear();
  coalescer_.coalesce(addresses, acc.bytes, active, requests_);
  const auto n = static_cast<uint32_t>(requests_.size());
  ++(local ? stats_.local_instructions : stats_.global_instructions);
  (local ? stats_.local_requests : stats_.global_requests) += n;
  const uint32_t busy = p_.dcache_banks ? bank_delays(bank_delay_) : n;
  if (p_.dcache_banks) stats_.dcache_bank_conflict_cycles += busy - 1;
  // A herded load spends its block selection (hook_cycles) in the coalescer stage before any request
  // leaves, and the stage takes no other access meanwhile.
  const uint32_t selection = issued.hook_cycles;
  unit_free_[static_cast<size_t>(OpClass::memory)] =
      now + selection + std::max(pipe.initiation_interval, busy);
  const bool blocks = p_.switch_on_memory;
  const bool waits =
      blocks || in.op == ptx::Op::ld || in.op == ptx::Op::tex || (acc.is_atomic && info.ndst > 0);
  uint64_t tag = LoadStoreUnit::kNoTag;
  if (waits) {
    tag = new_op();
    PendingOp& op = ops_[tag];  // filled in place: its context list keeps its capacity from op to op
    op.slot = slot;
    op.generation = w.generation;
    op.remaining = n;
    op.blocks = blocks;
    if (blocks) {
      ++timing_[slot].pending_accesses;
    } else {
      op.ndst = info.ndst;
      std::copy_n(info.dst.begin(), info.ndst, op.dst.begin());
      for (const Part& part : w.parts) {
        const uint32_t c = cta.contexts[part.warp];
        op.contexts.emplace_back(c, contexts_[c].generation);
        for (uint8_t i = 0; i < info.ndst; ++i) contexts_[c].reg_ready[info.dst[i]] = kPending;
      }
    }
    if (blocks) {
      // The home lanes of each request, for the hit register of dynamic warp subdivision.
      for (uint32_t i = 0; i < n; ++i) {
        ptx::LaneMask lanes = 0;
        for (ptx::LaneMask m = requests_[i].lanes; m; m &= m - 1)
          lanes |= ptx::LaneMask{1} << (issued.local_slot_lane[std::countr_zero(m)] & 0xff);
        op.requests.emplace_back(sent_address(requests_[i]), lanes);
      }
    }
    scheduler_.long_latency_stall(slot);  // two-level: make room in the active set
  }
  // Loads that must see other SMs' writes go past the L1 (RequestExt::coherent): grid barriers' polls.
  const bool coherent = !acc.is_store && !acc.is_atomic && acc.space == ptx::Space::global &&
                        (in.flags & (ptx::kCoherent | ptx::kVolatile)) != 0;
  for (uint32_t i = 0; i < n; ++i) {
    const CoalescedRequest& r = requests_[i];
    const uint64_t delay = pipe.latency + selection + (p_.dcache_banks ? bank_delay_[i] : i);
    const uint64_t address = sent_address(r);
    const uint32_t bytes = sent_bytes(r);
    if (acc.is_atomic) {
      atomic_targets(addresses, r.lanes, atomics_);
      lsu_.send(false, address, bytes, static_cast<int>(slot), pc, r.lanes, tag, delay, atomics_);
    } else {
      // A store that leaves bytes of its request unwritten carries byte enables (docs/tlm-protocol.md).
      if (acc.is_store) store_byte_enables(addresses, r.lanes, acc.bytes, address, bytes, byte_enables_);
      lsu_.send(acc.is_store, address, bytes, static_cast<int>(slot), pc, active, tag, delay, {},
                acc.is_store ? byte_enables_ : kNoByteEnables, coherent);
    }
  }
}

void Sm::memory_error(const OutstandingRequest& r, const std::string& status, const std::string& at) {
  // Located as a fault of the kernel is: the warp when its slot still runs it, else the PC and the SM.
  const bool live = r.warp >= 0 && static_cast<uint32_t>(r.warp) < timing_.size() && slot(r.warp).live;
  const std::string loc =
      live ? where(slot(r.warp), r.pc) : k_.where_pc(r.pc) + ", SM " + std::to_string(id_);
  fail("memory error: " + status + " answered by " + (at.empty() ? std::string("the memory system") : at) +
           " to a " + (r.write ? "write" : "read") + " of " + std::to_string(r.bytes) + " bytes at address " +
           fmt::format("{:#x}", r.address) + " (" + loc + ", sent at cycle " + std::to_string(r.sent_cycle) +
           ")",
       true);
}

uint32_t Sm::bank_delays(std::vector<uint32_t>& delays) const {
  // Banked by line: requests to one bank leave a cycle apart, requests to different banks together.
  delays.assign(requests_.size(), 0);
  std::array<uint32_t, 64> per_bank{};
  uint32_t busy = 1;
  for (size_t i = 0; i < requests_.size(); ++i) {
    const uint64_t bank = (requests_[i].base / p_.line_bytes) % p_.dcache_banks;
    delays[i] = per_bank[bank]++;
    busy = std::max(busy, per_bank[bank]);
  }
  return busy;
}

uint64_t Sm::local_address(uint32_t context, uint32_t lane, uint64_t offset) const {
  // Interleaved by word across the warp's lanes, as GPUs lay out local memory, so equal offsets coalesce.
  const uint64_t frame = (uint64_t(k_.fn.local_bytes) + 3) / 4 * 4;
  const uint64_t warp_base = kLocalBase + (uint64_t(id_) * p_.max_warps + context) * frame * ptx::kWarpSize;
  return warp_base + offset / 4 * 4 * ptx::kWarpSize + lane * 4 + offset % 4;
}

uint32_t Sm::new_op() {
  uint32_t id;
  if (free_ops_.empty()) {
    id = static_cast<uint32_t>(ops_.size());
    ops_.emplace_back();
  } else {
    id = free_ops_.back();
    free_ops_.pop_back();
  }
  PendingOp& op = ops_[id];
  op.fill = false;
  op.blocks = false;
  op.ndst = 0;
  op.contexts.clear();
  op.requests.clear();
  op.hit_lanes = 0;
  op.hits_told = false;
  return id;
}

void Sm::note_hit(PendingOp& op, uint64_t tag, const Answer& answer) {
  if (answer.l1_hit) {
    for (const auto& [address, lanes] : op.requests) {
      if (address == answer.address) op.hit_lanes |= lanes;
    }
  }
  // Told once: when the hits are all answered (none outstanding is a hit or not looked up yet) while some
  // miss is still outstanding; a miss answered first tells it then.
  if (op.hits_told || op.hit_lanes == 0 || op.remaining <= 1 || lsu_.hits_pending(tag)) return;
  op.hits_told = true;
  const IssueSlot& w = slot(op.slot);
  const MemoryEvent hits{MemoryEvent::Kind::hits_answered, op.hit_lanes};
  // A subdividing unit's slots share contexts: cycle() looks at every slot afresh, no invalidation here.
  if (w.live && w.generation == op.generation && unit_->memory_event(op.slot, hits, now_cycle()))
    wake_at(now_cycle());
}

void Sm::on_response(uint64_t tag, const Answer& answer) {
  PendingOp& op = ops_[tag];
  if (op.blocks) note_hit(op, tag, answer);
  if (--op.remaining > 0) return;
  free_ops_.push_back(static_cast<uint32_t>(tag));
  const uint64_t now = now_cycle();
  // Only the slot that issued reads these registers: slots that share contexts are looked at afresh anyway.
  invalidate(op.slot);
  if (op.blocks) {
    // Counted per slot and never reset: a slot that started afresh still waits for what it issued before.
    if (timing_[op.slot].pending_accesses && --timing_[op.slot].pending_accesses == 0)
      unit_->memory_event(op.slot, MemoryEvent{MemoryEvent::Kind::accesses_done, 0}, now);
  } else if (op.fill) {
    const IssueSlot& w = slot(op.slot);
    if (!w.live || w.generation != op.generation) return;
    --timing_[op.slot].pending_fills;
  } else {
    // Registers of warps that exited meanwhile (an older generation) are not touched.
    for (const auto& [c, generation] : op.contexts) {
      if (contexts_[c].generation != generation) continue;
      for (uint8_t i = 0; i < op.ndst; ++i) contexts_[c].reg_ready[op.dst[i]] = now;
    }
  }
  wake_at(now);
}

}  // namespace simtlm::hw
