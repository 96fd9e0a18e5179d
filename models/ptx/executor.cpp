// Executor entry points: warp setup, error locations, dispatch, moves, special registers and activemask.
// Warp-level operations are in executor_warp.cpp; arithmetic, conversions and memory in the other
// executor_*.cpp.
#include <fmt/format.h>

#include <cstring>

#include "models/ptx/executor_call.hpp"
#include "models/ptx/executor_internal.hpp"
#include "models/ptx/grid_rules.hpp"
#include "models/ptx/hooks.hpp"
#include "models/ptx/kernel_layout.hpp"

namespace simtlm::ptx {

using namespace exec;

Executor::Executor(const LaunchContext& launch) : launch_(launch) {
  if (launch_.module && launch_.kernel) require_supported(*launch_.module, *launch_.kernel);
}

namespace {

// A warp with fresh registers and local frames and no thread yet.
void clear_warp(const Function& fn, WarpContext& warp, CtaContext& cta, uint32_t warp_in_cta, bool tasks) {
  warp.cta = &cta;
  warp.warp_in_cta = warp_in_cta;
  warp.regs.assign(fn.regs.size() * kWarpSize, 0);
  warp.local.reset(size_t(fn.local_bytes) * kWarpSize);
  for (std::vector<uint8_t>& records : warp.call_records) records.clear();
  warp.valid = 0;
  warp.exited = 0;
  warp.lanes_own_cta = tasks;
  warp.tid.fill(Dim3{0, 0, 0});
  warp.lane_ctaid.fill(Dim3{0, 0, 0});
}

Dim3 thread_coordinates(const Dim3& block, uint64_t linear) {
  return Dim3{uint32_t(linear % block.x), uint32_t((linear / block.x) % block.y),
              uint32_t(linear / (block.x * block.y))};
}

}  // namespace

void Executor::init_warp(WarpContext& warp, CtaContext& cta, uint32_t warp_in_cta) const {
  clear_warp(*launch_.kernel, warp, cta, warp_in_cta, false);
  const uint64_t threads = launch_.block.count();
  for (unsigned lane = 0; lane < kWarpSize; ++lane) {
    const uint64_t linear = uint64_t(warp_in_cta) * kWarpSize + lane;
    if (linear >= threads) continue;
    warp.valid |= LaneMask{1} << lane;
    warp.tid[lane] = thread_coordinates(launch_.block, linear);
  }
}

void Executor::init_task_warp(WarpContext& warp, CtaContext& cta, uint32_t warp_in_cta) const {
  clear_warp(*launch_.kernel, warp, cta, warp_in_cta, true);
}

void Executor::start_task(WarpContext& warp, unsigned lane, uint64_t task) const {
  const Function& fn = *launch_.kernel;
  for (size_t r = 0; r < fn.regs.size(); ++r) warp.regs[r * kWarpSize + lane] = 0;
  if (fn.local_bytes) std::memset(warp.local.data() + size_t(lane) * fn.local_bytes, 0, fn.local_bytes);
  warp.call_records[lane].clear();
  const LaneMask bit = LaneMask{1} << lane;
  warp.valid |= bit;
  warp.exited &= ~bit;
  const uint64_t threads = launch_.block.count();
  warp.tid[lane] = thread_coordinates(launch_.block, task % threads);
  warp.lane_ctaid[lane] = cta_coordinates(launch_.grid, task / threads);
}

std::string Executor::where(const WarpContext& warp, uint32_t pc, int lane) const {
  const Function& fn = *launch_.kernel;
  std::string s = fmt::format("kernel {}", fn.name);
  if (warp.lanes_own_cta && lane >= 0 && lane < int(kWarpSize)) {
    const Dim3& id = warp.lane_ctaid[lane];
    s += fmt::format(", CTA ({},{},{})", id.x, id.y, id.z);
  } else if (warp.cta) {
    const Dim3& id = warp.cta->ctaid;
    s += fmt::format(", CTA ({},{},{})", id.x, id.y, id.z);
  }
  if (lane >= 0 && lane < int(kWarpSize)) {
    const Dim3& t = warp.tid[lane];
    s += fmt::format(", thread ({},{},{})", t.x, t.y, t.z);
  }
  s += fmt::format(", PC {}", pc);
  if (pc < fn.code.size()) {
    const Instr& in = fn.code[pc];
    s += fmt::format(" (PTX line {}", in.line);
    const Module* m = launch_.module;
    if (in.loc_file != 0 && m && in.loc_file < m->files.size()) {
      s += fmt::format(", {}:{}", m->files[in.loc_file], in.loc_line);
    }
    s += ")";
  }
  return s;
}

namespace exec {

namespace {

// cooperative_groups::this_grid().sync() traps when the grid workspace is null, as it is in a launch that is
// not cooperative: the message says so when the kernel reads the workspace's registers.
std::string trap_message(const Ctx& c) {
  if (c.launch.grid_workspace) return "trap";
  for (const Instr& in : c.fn.code) {
    for (unsigned k = 0; k < in.nsrc; ++k) {
      const Operand& op = in.src[k];
      if (op.kind == OperandKind::special &&
          (op.sreg == SpecialReg::envreg1 || op.sreg == SpecialReg::envreg2))
        return "trap: the kernel reads the grid workspace of cooperative_groups::this_grid() (%envreg1, "
               "%envreg2), which is null unless the launch is cooperative, so grid.sync() traps as on a GPU; "
               "launch it with `cooperative: true` (docs/launch-files.md, \"Cooperative launches\")";
    }
  }
  return "trap";
}

}  // namespace

void fail(const Ctx& c, int lane, const std::string& what) {
  throw KernelError(what + " at " + c.executor.where(c.warp, c.pc, lane));
}

WarpIdentity warp_identity(const WarpContext& warp) {
  WarpIdentity id;
  if (warp.cta) {
    id.ctaid = warp.cta->ctaid;
    id.cta_linear = warp.cta->linear_id;
  }
  id.warp_in_cta = warp.warp_in_cta;
  return id;
}

uint64_t symbol_address(const Ctx& c, uint32_t sym) {
  const Symbol& s = c.launch.module->symbols[sym];
  if (s.space == Space::global || s.space == Space::constant) return c.launch.symbol_address[sym];
  if (s.space == Space::shared) {
    // The running kernel's layout, also inside the .func functions it calls. Hand-built IR has none.
    const std::vector<uint64_t>& layout = c.launch.kernel->shared_offsets;
    if (layout.empty()) return s.offset;
    if (sym >= layout.size() || layout[sym] == kNoSharedOffset)
      fail(c, -1, "shared variable " + s.name + " is not in the kernel's shared layout");
    return layout[sym];
  }
  return s.offset;
}

uint64_t special_value(const Ctx& c, SpecialReg r, unsigned lane) {
  const Dim3& tid = c.warp.tid[lane];
  const Dim3& ctaid = c.warp.lanes_own_cta ? c.warp.lane_ctaid[lane] : c.warp.cta->ctaid;
  uint32_t below = uint32_t((uint64_t{1} << lane) - 1);
  switch (r) {
    case SpecialReg::tid_x:
      return tid.x;
    case SpecialReg::tid_y:
      return tid.y;
    case SpecialReg::tid_z:
      return tid.z;
    case SpecialReg::ntid_x:
      return c.launch.block.x;
    case SpecialReg::ntid_y:
      return c.launch.block.y;
    case SpecialReg::ntid_z:
      return c.launch.block.z;
    case SpecialReg::ctaid_x:
      return ctaid.x;
    case SpecialReg::ctaid_y:
      return ctaid.y;
    case SpecialReg::ctaid_z:
      return ctaid.z;
    case SpecialReg::nctaid_x:
      return c.launch.grid.x;
    case SpecialReg::nctaid_y:
      return c.launch.grid.y;
    case SpecialReg::nctaid_z:
      return c.launch.grid.z;
    case SpecialReg::laneid:
      return lane;
    case SpecialReg::warpid:
      return c.warp.warp_in_cta;
    case SpecialReg::nwarpid:
      return 64;
    case SpecialReg::smid:
      return c.warp.cta->smid;
    case SpecialReg::nsmid:
      return c.launch.nsm;
    case SpecialReg::gridid:
      return 0;
    case SpecialReg::clock:
      return uint32_t(c.warp.clock);
    case SpecialReg::clock_hi:
      return uint32_t(c.warp.clock >> 32);
    case SpecialReg::clock64:
      return c.warp.clock;
    case SpecialReg::globaltimer:
      return c.warp.clock;
    case SpecialReg::lanemask_eq:
      return uint32_t{1} << lane;
    case SpecialReg::lanemask_le:
      return below | (uint32_t{1} << lane);
    case SpecialReg::lanemask_lt:
      return below;
    case SpecialReg::lanemask_ge:
      return uint32_t(~below);
    case SpecialReg::lanemask_gt:
      return uint32_t(~(below | (uint32_t{1} << lane)));
    case SpecialReg::envreg1:
      return uint32_t(c.launch.grid_workspace >> 32);
    case SpecialReg::envreg2:
      return uint32_t(c.launch.grid_workspace);
    case SpecialReg::count_:
      break;
  }
  return 0;
}

const uint64_t* operand_values(const Ctx& c, const Operand& op, uint64_t* buf) {
  switch (op.kind) {
    case OperandKind::reg:
      return reg_row(c.warp, op.reg);
    case OperandKind::imm:
      for (unsigned i = 0; i < kWarpSize; ++i) buf[i] = op.imm;
      return buf;
    case OperandKind::special:
      switch (op.sreg) {
        case SpecialReg::tid_x:
          for_lanes(c.active, [&](unsigned lane) { buf[lane] = c.warp.tid[lane].x; });
          return buf;
        case SpecialReg::ctaid_x:
        case SpecialReg::ctaid_y:
        case SpecialReg::ctaid_z:
          if (!c.warp.lanes_own_cta) {
            const uint64_t v = special_value(c, op.sreg, 0);
            for (unsigned i = 0; i < kWarpSize; ++i) buf[i] = v;
            return buf;
          }
          for_lanes(c.active, [&](unsigned lane) { buf[lane] = special_value(c, op.sreg, lane); });
          return buf;
        case SpecialReg::tid_y:
        case SpecialReg::tid_z:
        case SpecialReg::laneid:
        case SpecialReg::lanemask_eq:
        case SpecialReg::lanemask_le:
        case SpecialReg::lanemask_lt:
        case SpecialReg::lanemask_ge:
        case SpecialReg::lanemask_gt:
          for_lanes(c.active, [&](unsigned lane) { buf[lane] = special_value(c, op.sreg, lane); });
          return buf;
        default: {  // the same for every lane of the warp
          uint64_t v = special_value(c, op.sreg, 0);
          for (unsigned i = 0; i < kWarpSize; ++i) buf[i] = v;
          return buf;
        }
      }
    case OperandKind::sym_addr: {
      uint64_t a = symbol_address(c, op.sym) + op.imm;
      for (unsigned i = 0; i < kWarpSize; ++i) buf[i] = a;
      return buf;
    }
    default:
      fail(c, -1, "unsupported source operand kind");
  }
}

namespace {

// mov, including vector pack ({a,b} -> wide) and unpack (wide -> {a,b}).
void exec_mov(Ctx& c) {
  const Instr& in = c.in;
  unsigned bits = type_bits(in.type);
  if (in.src[0].kind == OperandKind::vec) {
    const Operand& v = in.src[0];
    unsigned elem = bits / v.count;
    uint64_t* out = reg_row(c.warp, in.dst[0].reg);
    for_lanes(c.active, [&](unsigned lane) {
      uint64_t r = 0;
      for (unsigned i = 0; i < v.count; ++i) {
        uint64_t e = v.vregs[i] == kNoReg ? 0 : reg_row(c.warp, v.vregs[i])[lane];
        r |= (e & low_mask(elem)) << (i * elem);
      }
      out[lane] = r;
    });
    return;
  }
  uint64_t buf[kWarpSize];
  const uint64_t* a = operand_values(c, in.src[0], buf);
  if (in.dst[0].kind == OperandKind::vec) {
    const Operand& v = in.dst[0];
    unsigned elem = bits / v.count;
    for_lanes(c.active, [&](unsigned lane) {
      uint64_t value = a[lane];
      for (unsigned i = 0; i < v.count; ++i) {
        if (v.vregs[i] != kNoReg) reg_row(c.warp, v.vregs[i])[lane] = (value >> (i * elem)) & low_mask(elem);
      }
    });
    return;
  }
  uint64_t* out = reg_row(c.warp, in.dst[0].reg);
  uint64_t m = low_mask(bits);
  for_lanes(c.active, [&](unsigned lane) { out[lane] = a[lane] & m; });
}

void exec_bar(Ctx& c) {
  // bar.red's reduction spans the CTA, so the runner computes it when the barrier completes.
  const Instr& in = c.in;
  c.step.kind = StepKind::barrier;
  unsigned first = c.active ? unsigned(std::countr_zero(c.active)) : 0;
  uint64_t buf[kWarpSize];
  c.step.barrier_id = uint32_t(operand_values(c, in.src[0], buf)[first]);
  if (in.nsrc >= 2 && in.src[1].kind != OperandKind::none) {
    c.step.barrier_all_threads = false;
    c.step.barrier_count = uint32_t(operand_values(c, in.src[1], buf)[first]);
  }
}

}  // namespace
}  // namespace exec

WarpStep Executor::execute(WarpContext& warp, uint32_t pc, LaneMask mask) const {
  const Function& fn = *launch_.kernel;
  const Instr& in = fn.code[pc];
  WarpStep step;
  LaneMask active = mask;
  if (in.guard != kNoReg) {
    const uint64_t* g = reg_row(warp, in.guard);
    LaneMask pass = 0;
    for_lanes(mask, [&](unsigned lane) { pass |= LaneMask(g[lane] & 1) << lane; });
    active = in.guard_neg ? (mask & ~pass) : pass;
  }
  step.active = active;
  Ctx c{*this, launch_, warp, fn, in, pc, active, step};
  switch (in.op) {
    case Op::bra:
      step.kind = StepKind::branch;
      if (launch_.hooks.branch && in.guard != kNoReg) [[unlikely]] {
        // The hook's direction replaces the guard's for every lane, as in hardware that overrides the branch.
        const BranchDecision decision = launch_.hooks.branch->branch_taken(
            BranchEvent{fn, pc, mask, active, warp_identity(warp), launch_.module});
        active = mask & decision.taken;
        step.active = active;
        step.hook_cycles = decision.extra_cycles;
      }
      step.taken = active;
      step.target = in.target;
      return step;
    case Op::ret:
      if (in.returns_from != kNoTarget) {
        exec_device_return(c);
        return step;
      }
      [[fallthrough]];
    case Op::exit:
      step.kind = StepKind::exit;
      warp.exited |= active;
      return step;
    case Op::trap:
      if (active) fail(c, std::countr_zero(active), trap_message(c));
      return step;
    case Op::bar:
      exec_bar(c);
      return step;
    case Op::bar_warp:
    case Op::membar:
    case Op::nop:
    case Op::nanosleep:  // sleeping changes no value; the timing models may give it a latency
      return step;
    case Op::call:
      if (in.call_site != kNoTarget) {
        exec_device_call(c);
      } else {
        exec_call(c);
      }
      return step;
    case Op::vote:
      exec_vote(c);
      return step;
    case Op::shfl:
      exec_shfl(c);
      return step;
    case Op::match:
      exec_match(c);
      return step;
    case Op::redux:
      exec_redux(c);
      return step;
    case Op::fns:
      exec_fns(c);
      return step;
    case Op::activemask: {
      uint64_t* out = reg_row(warp, in.dst[0].reg);
      for_lanes(active, [&](unsigned lane) { out[lane] = mask; });
      return step;
    }
    case Op::mov:
      exec_mov(c);
      return step;
    case Op::cvt:
      exec_cvt(c);
      return step;
    case Op::cvta:
      exec_cvta(c);
      return step;
    case Op::ld:
    case Op::st:
    case Op::atom:
    case Op::red:
      exec_memory(c);
      return step;
    case Op::tex:
      exec_texture(c);
      return step;
    default:
      break;
  }
  if (active == 0) return step;
  if (in.op == Op::setp || in.op == Op::selp || in.op == Op::slct) {
    exec_compare(c);
  } else if (type_is_float(in.type)) {
    exec_float(c);
  } else {
    exec_int(c);
  }
  return step;
}

}  // namespace simtlm::ptx
