// Call records, per lane in WarpContext::call_records: [the caller's registers live across the call, 8 bytes
// each][the callee's frame region, padded to 8][PC of the call (u32), bytes charged (u32)]. The hidden
// register Function::call_stack_pointer holds the bytes charged per lane against Function::call_stack_bytes.
#include "models/ptx/executor_call.hpp"

#include <fmt/format.h>

#include "models/ptx/call_link.hpp"

namespace simtlm::ptx::exec {
namespace {

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

}  // namespace

void exec_device_call(Ctx& c) {
  const Function& fn = c.fn;
  const CallSite& site = fn.call_sites[c.in.call_site];
  if (site.linked == kNoTarget || fn.call_stack_pointer == kNoReg) {
    fail(c, -1, "call to .func " + site.callee_name + " that is not linked into the kernel");
  }
  const LinkedCallee& callee = fn.linked_callees[site.linked];
  const uint32_t charge = site.frame_bytes;
  const uint32_t record = call_record_bytes(site, callee);
  uint64_t* sp = reg_row(c.warp, fn.call_stack_pointer);
  for_lanes(c.active, [&](unsigned lane) {
    if (sp[lane] + charge > fn.call_stack_bytes) {
      throw KernelError(
          fmt::format("call stack overflow calling {}: a call record of {} bytes does not fit in the {} "
                      "bytes left of the "
                      "per-thread call stack of {} bytes, in warp {} at {}",
                      site.callee_name, charge, fn.call_stack_bytes - sp[lane], fn.call_stack_bytes,
                      c.warp.warp_in_cta, c.executor.where(c.warp, c.pc, int(lane))));
    }
    std::vector<uint8_t>& records = c.warp.call_records[lane];
    if (records.size() + record > kMaxCallRecordBytesPerThread) {
      fail(c, int(lane),
           fmt::format("calling {}: the model's saved state for the thread's active calls would pass {} "
                       "bytes (frames with large .param regions)",
                       site.callee_name, kMaxCallRecordBytesPerThread));
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
    const uint32_t tail[2] = {c.pc, charge};
    std::memcpy(records.data() + records.size() - 8, tail, 8);
    sp[lane] += charge;
    for (size_t i = 0; i < site.args.size(); ++i) copy_param(c, frame, site.args[i], callee.params[i]);
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
    uint32_t tail[2] = {0, 0};
    if (records.size() >= 8) std::memcpy(tail, records.data() + records.size() - 8, 8);
    const uint32_t call_pc = tail[0];
    const bool matches = records.size() >= 8 && call_pc < fn.code.size() &&
                         fn.code[call_pc].call_site != kNoTarget &&
                         fn.call_sites[fn.code[call_pc].call_site].linked == c.in.returns_from;
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
