// Compiled-code frame estimates for calls; see call_frames.hpp.
#include "models/ptx/call_frames.hpp"

#include <algorithm>
#include <stdexcept>

#include "models/ptx/cfg.hpp"
#include "models/ptx/herd_dependence.hpp"

namespace simtlm::ptx {
namespace {

using Words = std::vector<uint64_t>;

void set_bit(Words& bits, uint32_t i) {
  bits[i / 64] |= uint64_t{1} << (i % 64);
}
void clear_bit(Words& bits, uint32_t i) {
  bits[i / 64] &= ~(uint64_t{1} << (i % 64));
}

// Live registers before instruction `in`, given those live after it.
void step_back(const Instr& in, Words& live) {
  if (in.guard == kNoReg) {  // a guarded write keeps the old value in the other lanes
    for (uint32_t r : herd::written_registers(in)) clear_bit(live, r);
  }
  for (uint32_t r : herd::read_registers(in)) set_bit(live, r);
}

uint64_t register_bytes(const Function& fn, const std::vector<uint32_t>& regs) {
  uint64_t bytes = 0;
  for (uint32_t r : regs) bytes += register_frame_bytes(fn.regs[r].type);
  return bytes;
}

uint32_t frame_bytes(uint64_t register_bytes, uint32_t depot_bytes) {
  return static_cast<uint32_t>((register_bytes + depot_bytes + kCallFrameBookkeepingBytes + 7) / 8 * 8);
}

}  // namespace

uint32_t register_frame_bytes(Type type) {
  const unsigned bits = type_bits(type);
  return bits > 64 ? 16 : bits > 32 ? 8 : 4;
}

uint64_t liveness_words(const Function& fn) {
  return (uint64_t(fn.code.size()) + 1) * ((fn.regs.size() + 63) / 64);
}

std::vector<std::vector<uint32_t>> live_across_calls(const Function& fn, uint64_t max_entries) {
  std::vector<std::vector<uint32_t>> out(fn.code.size());
  if (std::none_of(fn.code.begin(), fn.code.end(), [](const Instr& in) { return in.op == Op::call; }))
    return out;
  const Cfg cfg(fn);
  const auto& blocks = cfg.blocks();
  const size_t words = (fn.regs.size() + 63) / 64;
  std::vector<Words> live_in(blocks.size(), Words(words, 0));
  auto live_out = [&](uint32_t b) {
    Words live(words, 0);
    for (uint32_t s : blocks[b].succ) {
      for (size_t w = 0; w < words; ++w) live[w] |= live_in[s][w];
    }
    return live;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t b = static_cast<uint32_t>(blocks.size()); b-- > 0;) {
      if (b == cfg.virtual_exit()) continue;
      Words live = live_out(b);
      for (uint32_t pc = blocks[b].last + 1; pc-- > blocks[b].first;) step_back(fn.code[pc], live);
      if (live != live_in[b]) {
        live_in[b] = std::move(live);
        changed = true;
      }
    }
  }
  uint64_t entries = 0;
  for (uint32_t b = 0; b < blocks.size(); ++b) {
    if (b == cfg.virtual_exit()) continue;
    Words live = live_out(b);
    for (uint32_t pc = blocks[b].last + 1; pc-- > blocks[b].first;) {
      if (fn.code[pc].op == Op::call) {
        for (uint32_t r = 0; r < fn.regs.size(); ++r) {
          if ((live[r / 64] >> (r % 64)) & 1) out[pc].push_back(r);
        }
        entries += out[pc].size();
        if (entries > max_entries) throw std::length_error("registers live across calls");
      }
      step_back(fn.code[pc], live);
    }
  }
  return out;
}

uint32_t local_depot_bytes(const Module& module, uint32_t function) {
  uint64_t end = 0;
  for (const Symbol& sym : module.symbols) {
    if (sym.function == int32_t(function) && sym.space == Space::local && !sym.call_scope)
      end = std::max(end, sym.offset + sym.size);
  }
  return static_cast<uint32_t>(end);
}

uint32_t call_frame_charge(const Function& caller, const std::vector<uint32_t>& live_registers,
                           uint32_t callee_depot_bytes) {
  return frame_bytes(register_bytes(caller, live_registers), callee_depot_bytes);
}

uint32_t frame_estimate(const Module& module, uint32_t function) {
  const Function& fn = module.functions[function];
  const std::vector<std::vector<uint32_t>> live = live_across_calls(fn);
  uint64_t most = 0;
  for (const std::vector<uint32_t>& regs : live) most = std::max(most, register_bytes(fn, regs));
  return frame_bytes(most, local_depot_bytes(module, function));
}

}  // namespace simtlm::ptx
