#include "hw/stack_runner.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>

#include "hw/ssy_points.hpp"
#include "models/ptx/cfg.hpp"
#include "models/ptx/parser.hpp"

namespace simtlm::hw {
namespace {

constexpr uint64_t kBufferAlign = 256;  // as launch::Session lays buffers out, so addresses match

// The same layout as launch::Session::build_param_buffer (private there); Session validated the types.
std::vector<uint8_t> param_buffer(const launch::Launch& launch, const ptx::Function& kernel,
                                  const std::map<std::string, uint64_t>& addresses) {
  uint32_t size = kernel.param_bytes;
  for (const auto& p : kernel.params) size = std::max(size, p.offset + p.size);
  std::vector<uint8_t> buffer(size, 0);
  if (kernel.params.size() != launch.params.size()) throw std::invalid_argument("parameter count differs");
  for (size_t i = 0; i < kernel.params.size(); ++i) {
    const ptx::Param& p = kernel.params[i];
    const launch::ParamValue& v = launch.params[i];
    using Kind = launch::ParamValue::Kind;
    uint8_t* dst = &buffer[p.offset];
    if (v.kind == Kind::buffer) {
      const uint64_t addr = addresses.at(v.buffer);
      std::memcpy(dst, &addr, 8);
    } else if (p.type == ptx::Type::f32) {
      const float f = v.kind == Kind::real ? float(v.real) : float(v.integer);
      std::memcpy(dst, &f, 4);
    } else if (p.type == ptx::Type::f64) {
      const double d = v.kind == Kind::real ? v.real : double(v.integer);
      std::memcpy(dst, &d, 8);
    } else {
      const auto bits = uint64_t(v.kind == Kind::real ? int64_t(v.real) : v.integer);
      std::memcpy(dst, &bits, p.size);
    }
  }
  return buffer;
}

}  // namespace

StackRunner::StackRunner(StackParams params, uint64_t instruction_budget)
    : params_(params), budget_(instruction_budget) {}

StackRunResult StackRunner::run(const launch::Launch& launch) const {
  if (launch.grid.count() != 1 || launch.block.count() > ptx::kWarpSize) {
    throw std::invalid_argument("StackRunner runs one CTA of at most 32 threads");
  }
  const ptx::Module module = ptx::load_ptx_file(launch.ptx.string());
  std::string error;
  const ptx::Function* kernel = module.find_entry(launch.kernel, &error);
  if (!kernel) throw std::invalid_argument("no entry '" + launch.kernel + "': " + error);

  ptx::GlobalMemory memory;
  std::map<std::string, uint64_t> addresses;
  std::map<std::string, uint64_t> sizes;
  for (const launch::BufferSpec& spec : launch.buffers) {
    const std::vector<uint8_t> bytes = launch::init_buffer(launch, spec);
    const uint64_t addr = memory.allocate(std::max<uint64_t>(bytes.size(), 1), kBufferAlign, spec.name);
    if (!bytes.empty()) memory.write(addr, bytes.data(), bytes.size());
    addresses[spec.name] = addr;
    sizes[spec.name] = bytes.size();
  }
  ptx::LaunchContext context;
  context.module = &module;
  context.kernel = kernel;
  context.grid = launch.grid;
  context.block = launch.block;
  context.dynamic_shared_bytes = launch.shared_bytes;
  context.global = &memory;
  context.symbol_address.assign(module.symbols.size(), 0);
  for (size_t i = 0; i < module.symbols.size(); ++i) {
    const ptx::Symbol& sym = module.symbols[i];
    if ((sym.space != ptx::Space::global && sym.space != ptx::Space::constant) || sym.size == 0) continue;
    const uint64_t addr = memory.allocate(sym.size, std::max<uint64_t>(sym.align, kBufferAlign), sym.name);
    if (!sym.init.empty()) memory.write(addr, sym.init.data(), std::min<uint64_t>(sym.init.size(), sym.size));
    context.symbol_address[i] = addr;
  }
  context.param_buffer = param_buffer(launch, *kernel, addresses);

  const ptx::Cfg cfg(*kernel);
  const SsyMap ssy(*kernel, cfg);
  const ptx::Executor executor(context);
  ptx::CtaContext cta;
  cta.ctaid = ptx::Dim3{0, 0, 0};  // Dim3 defaults to 1s (a size), not a coordinate
  cta.shared.assign(size_t(kernel->static_shared_bytes) + launch.shared_bytes, 0);
  ptx::WarpContext warp;
  warp.cta = &cta;
  executor.init_warp(warp, cta, 0);

  const auto& code = kernel->code;
  const auto ncode = static_cast<uint32_t>(code.size());
  const auto threads = static_cast<uint32_t>(launch.block.count());
  SimtStack stack(params_, 0);
  stack.reset(0, threads == ptx::kWarpSize ? ~ptx::LaneMask{0} : (ptx::LaneMask{1} << threads) - 1);
  StackRunResult result;
  uint32_t previous = ptx::kNoTarget;
  while (!stack.done()) {
    const uint32_t pc = stack.pc();
    if (pc >= ncode) {  // fell off the end: an implicit exit
      stack.exit(stack.mask(), pc);
      continue;
    }
    for (uint32_t join : ssy.fire(pc, previous)) stack.ssy(join);
    const ptx::LaneMask mask = stack.mask();
    warp.clock = result.warp_instructions;
    const ptx::WarpStep step = executor.execute(warp, pc, mask);
    ++result.warp_instructions;
    result.thread_instructions += std::popcount(mask);
    if (result.thread_instructions > budget_)
      throw ptx::KernelError("StackRunner: instruction budget exceeded");
    previous = pc;
    if (step.kind == ptx::StepKind::branch) {
      const ptx::Instr& in = code[pc];
      stack.branch(BranchOutcome{pc, mask, in.guard == ptx::kNoReg ? mask : step.taken, in.target, pc + 1,
                                 cfg.reconvergence_pc(pc)});
    } else if (step.kind == ptx::StepKind::exit) {
      stack.exit(step.active, pc + 1);
    } else {
      stack.advance(pc + 1);
    }
  }
  for (const auto& [name, addr] : addresses) {
    std::vector<uint8_t> bytes(sizes[name]);
    if (!bytes.empty()) memory.read(addr, bytes.data(), bytes.size());
    result.buffers[name] = std::move(bytes);
  }
  result.stack = stack.counters();
  result.spill_requests = stack.take_requests();
  result.cycles = result.warp_instructions + result.stack.cycles;
  return result;
}

}  // namespace simtlm::hw
