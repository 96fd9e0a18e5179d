#include "models/ptx/cta_barriers.hpp"

#include <bit>

namespace simtlm::ptx {
namespace {

bool is_reduction(Sub sub) {
  return sub == Sub::bar_red_popc || sub == Sub::bar_red_and || sub == Sub::bar_red_or;
}

}  // namespace

void CtaBarriers::reset(uint32_t warps, uint64_t live_threads) {
  barriers_.fill(Barrier{});
  waiters_.assign(warps, Waiter{});
  released_.clear();
  live_threads_ = live_threads;
}

uint64_t CtaBarriers::expected(uint32_t id) const {
  return barriers_[id].expected ? barriers_[id].expected : live_threads_;
}

bool CtaBarriers::arrive(uint32_t warp, WarpContext& ctx, const Instr& in, uint32_t pc,
                         const WarpStep& step) {
  const LaneMask lanes = step.active;
  if (!lanes) return false;
  Barrier& b = barriers_[step.barrier_id];
  b.arrived += static_cast<uint32_t>(std::popcount(lanes));
  if (!step.barrier_all_threads) b.expected = step.barrier_count;
  if (is_reduction(in.sub)) {
    const Operand& pred = in.src[2];
    for (LaneMask m = lanes; m; m &= m - 1) {
      const unsigned lane = std::countr_zero(m);
      bool value = pred.kind == OperandKind::reg ? (ctx.regs[size_t(pred.reg) * kWarpSize + lane] & 1) != 0
                                                 : (pred.imm & 1) != 0;
      value ^= pred.negate;
      b.popc += value;
      b.all = b.all && value;
      b.any = b.any || value;
    }
  }
  Waiter& w = waiters_[warp];
  if (in.sub != Sub::bar_arrive) {
    // Under compaction one CTA warp's threads may arrive in several formed warps: they wait as one.
    if (w.waiting && w.id == step.barrier_id) {
      w.lanes |= lanes;
    } else {
      w = Waiter{true, step.barrier_id, pc, lanes, &ctx, &in};
    }
  }
  if (complete(b)) release(step.barrier_id);
  return w.waiting;
}

void CtaBarriers::threads_exited(uint64_t threads) {
  if (!threads) return;
  live_threads_ -= threads;
  for (uint32_t id = 0; id < kIds; ++id) {
    if (complete(barriers_[id])) release(id);
  }
}

std::vector<uint32_t> CtaBarriers::take_released() {
  std::vector<uint32_t> out;
  out.swap(released_);
  return out;
}

void CtaBarriers::release(uint32_t id) {
  const Barrier b = barriers_[id];
  barriers_[id] = Barrier{};
  ++completions_;
  for (uint32_t i = 0; i < waiters_.size(); ++i) {
    Waiter& w = waiters_[i];
    if (!w.waiting || w.id != id) continue;
    w.waiting = false;
    released_.push_back(i);
    const Instr& in = *w.instr;
    if (!is_reduction(in.sub) || in.dst[0].kind != OperandKind::reg) continue;
    const uint64_t value = in.sub == Sub::bar_red_popc ? b.popc : in.sub == Sub::bar_red_and ? b.all : b.any;
    for (LaneMask m = w.lanes; m; m &= m - 1) {
      w.ctx->regs[size_t(in.dst[0].reg) * kWarpSize + std::countr_zero(m)] = value;
    }
  }
}

}  // namespace simtlm::ptx
