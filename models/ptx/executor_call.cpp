// Call records, per lane in WarpContext::call_records: [the caller's registers live across the call, 8 bytes
// each][the callee's frame region, padded to 8][PC of the call (u32), bytes charged (u32), index of the
// callee in Function::linked_callees (u32), 0 (u32)]. The hidden register Function::call_stack_pointer holds
// the bytes charged per lane against Function::call_stack_bytes.
#include "models/ptx/executor_call.hpp"

#include <fmt/format.h>

#include "models/ptx/call_link.hpp"

namespace simtlm::ptx::exec {
namespace {

constexpr size_t kTailBytes = 16;

uint8_t* frame_of(const Ctx& c, unsigned lane) {
  return c.warp.local.data() + size_t(lane) * c.fn.local_bytes;
}

const Symbol& symbol(const Ctx& c, uint32_t sym) {
  return c.launch.module->symbols[sym];
}

// Copies min(size of both) bytes from one frame symbol to another in the same thread's frame.
void copy_param(const Ctx& c, uint8_t* frame, uint32_t from, uint32_t to) {
  const Symbol& src = symbol(c, from);
  const Symbol& dst = symbol(c, to);
  std::memmove(frame + dst.offset, frame + src.offset, std::min(src.size, dst.size));
}

// Pushes the lane's record of a call of linked callee `linked` charged `charge` bytes and passes the
// arguments.
void push_record(Ctx& c, unsigned lane, const CallSite& site, uint32_t linked, uint32_t charge) {
  const Function& fn = c.fn;
  const LinkedCallee& callee = fn.linked_callees[linked];
  const std::string& name = c.launch.module->functions[callee.function].name;
  const uint32_t record = call_record_bytes(site, callee);
  uint64_t* sp = reg_row(c.warp, fn.call_stack_pointer);
  if (sp[lane] + charge > fn.call_stack_bytes) {
    throw KernelError(fmt::format(
        "call stack overflow calling {}: a call record of {} bytes does not fit in the {} bytes left of the "
        "per-thread call stack of {} bytes, in warp {} at {}",
        name, charge, fn.call_stack_bytes - sp[lane], fn.call_stack_bytes, c.warp.warp_in_cta,
        c.executor.where(c.warp, c.pc, int(lane))));
  }
  std::vector<uint8_t>& records = c.warp.call_records[lane];
  if (records.size() + record > kMaxCallRecordBytesPerThread) {
    fail(c, int(lane),
         fmt::format("calling {}: the model's saved state for the thread's active calls would pass {} "
                     "bytes (frames with large .param regions)",
                     name, kMaxCallRecordBytesPerThread));
  }
  uint8_t* frame = frame_of(c, lane);
  const size_t base = records.size();
  records.resize(base + record, 0);
  uint8_t* out = records.data() + base;
  for (uint32_t r : site.saved_regs) {
    std::memcpy(out, &reg_row(c.warp, r)[lane], 8);
    out += 8;
  }
  std::memcpy(out, frame + callee.frame_offset, callee.frame_bytes);
  const uint32_t tail[4] = {c.pc, charge, linked, 0};
  std::memcpy(records.data() + records.size() - kTailBytes, tail, kTailBytes);
  sp[lane] += charge;
  for (size_t i = 0; i < site.args.size(); ++i) copy_param(c, frame, site.args[i], callee.params[i]);
}

// Whether the callee's .params have the sizes of the call's prototype.
bool fits_prototype(const Ctx& c, const CallSite& site, const LinkedCallee& callee) {
  auto same = [&](const std::vector<uint32_t>& symbols, const std::vector<uint32_t>& sizes) {
    if (symbols.size() != sizes.size()) return false;
    for (size_t i = 0; i < sizes.size(); ++i)
      if (symbol(c, symbols[i]).size != sizes[i]) return false;
    return true;
  };
  return same(callee.params, site.prototype_args) && same(callee.returns, site.prototype_returns);
}

std::string sizes_text(const std::vector<uint32_t>& sizes) {
  if (sizes.empty()) return "nothing";
  std::string text;
  for (uint32_t size : sizes) text += (text.empty() ? "" : " + ") + std::to_string(size);
  return text + " bytes";
}

// The linked callee lane's function pointer names; a KernelError when it names no function that can run.
uint32_t indirect_callee(const Ctx& c, const CallSite& site, unsigned lane) {
  const Function& fn = c.fn;
  const Module& module = *c.launch.module;
  const uint64_t value = reg_row(c.warp, c.in.src[0].reg)[lane];
  const uint32_t id = function_address_id(value, module.function_addresses.size());
  if (id == kNoTarget || id >= fn.indirect_targets.size()) {
    fail(c, int(lane),
         fmt::format("indirect call through {} to {:#x}, which is not the address of a function",
                     fn.regs[c.in.src[0].reg].name, value));
  }
  const IndirectTarget& target = fn.indirect_targets[id];
  const std::string& name = module.function_addresses[id].name;
  if (target.linked == kNoTarget)
    fail(c, int(lane), fmt::format("indirect call of {}, which cannot run: {}", name, target.why_not));
  const LinkedCallee& callee = fn.linked_callees[target.linked];
  if (!fits_prototype(c, site, callee)) {
    std::vector<uint32_t> params, returns;
    for (uint32_t s : callee.params) params.push_back(static_cast<uint32_t>(symbol(c, s).size));
    for (uint32_t s : callee.returns) returns.push_back(static_cast<uint32_t>(symbol(c, s).size));
    fail(c, int(lane),
         fmt::format("indirect call of {} through a prototype that does not match it: the call passes {} "
                     "and receives {}; {} takes {} and returns {}",
                     name, sizes_text(site.prototype_args), sizes_text(site.prototype_returns), name,
                     sizes_text(params), sizes_text(returns)));
  }
  return target.linked;
}

}  // namespace

void exec_device_call(Ctx& c) {
  const Function& fn = c.fn;
  const CallSite& site = fn.call_sites[c.in.call_site];
  if (fn.call_stack_pointer == kNoReg || (!site.indirect && site.linked == kNoTarget)) {
    fail(c, -1, "call to .func " + site.callee_name + " that is not linked into the kernel");
  }
  if (!site.indirect) {
    for_lanes(c.active, [&](unsigned lane) { push_record(c, lane, site, site.linked, site.frame_bytes); });
    return;
  }
  // Every lane's target is checked before any lane calls, so a bad pointer leaves no half-made call.
  std::array<uint32_t, kWarpSize> linked{};
  for_lanes(c.active, [&](unsigned lane) { linked[lane] = indirect_callee(c, site, lane); });
  for_lanes(c.active, [&](unsigned lane) {
    push_record(c, lane, site, linked[lane], site.indirect_frame_bytes[linked[lane]]);
    c.warp.call_entry[lane] = fn.linked_callees[linked[lane]].entry_pc;
  });
}

void exec_device_return(Ctx& c) {
  const Function& fn = c.fn;
  c.step.kind = StepKind::exit;
  const LinkedCallee& callee = fn.linked_callees[c.in.returns_from];
  uint64_t* sp = reg_row(c.warp, fn.call_stack_pointer);
  std::vector<uint8_t> values;
  for_lanes(c.active, [&](unsigned lane) {
    uint8_t* frame = frame_of(c, lane);
    std::vector<uint8_t>& records = c.warp.call_records[lane];
    uint32_t tail[4] = {0, 0, 0, 0};
    if (records.size() >= kTailBytes)
      std::memcpy(tail, records.data() + records.size() - kTailBytes, kTailBytes);
    const uint32_t call_pc = tail[0];
    const bool matches = records.size() >= kTailBytes && call_pc < fn.code.size() &&
                         fn.code[call_pc].call_site != kNoTarget && tail[2] == c.in.returns_from;
    const CallSite* site = matches ? &fn.call_sites[fn.code[call_pc].call_site] : nullptr;
    if (!site || records.size() < call_record_bytes(*site, callee) || sp[lane] < tail[1]) {
      fail(c, int(lane),
           "ret of " + c.launch.module->functions[callee.function].name +
               " without a matching call record on the call stack");
    }
    sp[lane] -= tail[1];
    values.clear();
    for (uint32_t s : callee.returns) {
      const Symbol& ret = symbol(c, s);
      values.insert(values.end(), frame + ret.offset, frame + ret.offset + ret.size);
    }
    const size_t base = records.size() - call_record_bytes(*site, callee);
    const uint8_t* in = records.data() + base;
    for (uint32_t r : site->saved_regs) {
      std::memcpy(&reg_row(c.warp, r)[lane], in, 8);
      in += 8;
    }
    std::memcpy(frame + callee.frame_offset, in, callee.frame_bytes);
    records.resize(base);
    size_t cursor = 0;
    for (size_t i = 0; i < site->returns.size(); ++i) {
      const Symbol& from = symbol(c, callee.returns[i]);
      const Symbol& to = symbol(c, site->returns[i]);
      std::memcpy(frame + to.offset, values.data() + cursor, std::min(from.size, to.size));
      cursor += from.size;
    }
  });
}

}  // namespace simtlm::ptx::exec
