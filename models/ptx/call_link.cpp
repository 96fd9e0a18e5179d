// Linking of .func bodies into kernel code images; see call_link.hpp.
#include "models/ptx/call_link.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "models/ptx/call_frames.hpp"
#include "models/ptx/limits.hpp"
#include "models/ptx/parser.hpp"

namespace simtlm::ptx {
namespace {

uint64_t align_up(uint64_t value, uint64_t align) {
  return align <= 1 ? value : (value + align - 1) / align * align;
}

// The symbols of one .func copied into one kernel: old symbol index -> relocated index.
using SymbolMap = std::unordered_map<uint32_t, uint32_t>;

// A call that cannot be linked: the kernel that reaches it is refused (Function::unsupported).
struct LinkRefusal {
  uint32_t line = 0;
  std::string message;
};

class Linker {
 public:
  explicit Linker(Module& module) : module_(module) {
    for (const Function& fn : module.functions) module_instructions_ += fn.code.size();
    for (uint32_t f = 0; f < module.functions.size(); ++f) depots_.push_back(local_depot_bytes(module, f));
  }

  void link(uint32_t entry_index) {
    Function& entry = module_.functions[entry_index];
    std::vector<uint32_t> reached;
    bool indirect = false;
    try {
      std::vector<uint8_t> seen(module_.functions.size(), 0);
      seen[entry_index] = 1;
      indirect = walk(entry_index, seen, reached);
    } catch (const LinkRefusal& refusal) {
      if (entry.unsupported.empty()) {
        entry.unsupported = refusal.message;
        entry.unsupported_line = refusal.line;
        entry.unsupported_text.clear();
      }
      return;
    }
    if (indirect) add_indirect_targets(entry_index, reached);
    if (reached.empty() && !indirect) return;
    check_linked_size(entry, reached);
    saved_registers_ = 0;
    std::vector<SymbolMap> maps(reached.size());
    for (size_t i = 0; i < reached.size(); ++i) {
      maps[i] = place_frame(entry_index, reached[i], entry.linked_callees.emplace_back());
      if (module_.symbols.size() > limits::kMaxSymbols)
        limit_error(entry, "the symbols of the module once callee frames are linked into its kernels",
                    module_.symbols.size(), limits::kMaxSymbols);
    }
    std::unordered_map<uint32_t, uint32_t> linked_index;  // function -> index in linked_callees
    for (size_t i = 0; i < reached.size(); ++i) linked_index.emplace(reached[i], static_cast<uint32_t>(i));
    for (IndirectTarget& target : entry.indirect_targets) {
      if (target.linked != kNoTarget) target.linked = linked_index.at(target.linked);
    }
    const std::vector<std::vector<uint32_t>> live = checked_liveness(entry, entry);
    for (uint32_t pc = 0; pc < entry.code.size(); ++pc) {
      const Instr& in = entry.code[pc];
      if (in.op != Op::call || in.call_site == kNoTarget) continue;
      CallSite& site = entry.call_sites[in.call_site];
      if (site.indirect) {
        site.saved_regs = live[pc];
        site.indirect_frame_bytes = indirect_charges(entry, live[pc], reached);
      } else {
        if (in.callee == kNoFunction) continue;
        site.linked = linked_index.at(in.callee);
        site.saved_regs = live[pc];
        site.frame_bytes = call_frame_charge(entry, live[pc], depots_[in.callee]);
      }
      saved_registers_ += live[pc].size();
    }
    for (size_t i = 0; i < reached.size(); ++i)
      append_code(entry, static_cast<uint32_t>(i), maps[i], linked_index, reached);
    if (entry.local_bytes > limits::kMaxLocalBytesPerThread) {
      limit_error(entry,
                  "the .local bytes per thread of kernel " + entry.name + " with the frames of its callees",
                  entry.local_bytes, limits::kMaxLocalBytesPerThread);
    }
    entry.call_stack_bytes = kCallStackBytesPerThread;
    entry.call_stack_pointer = static_cast<uint32_t>(entry.regs.size());
    entry.regs.push_back(RegInfo{"%__call_stack_pointer", Type::b64});
  }

 private:
  [[noreturn]] void fail(uint32_t line, const std::string& message) const {
    throw LinkRefusal{line, message};
  }

  // A module whose kernels grow past a limit once their callees are linked in is not loaded: the error
  // names the kernel's line.
  [[noreturn]] void limit_error(const Function& entry, const std::string& what, uint64_t value,
                                uint64_t limit) const {
    throw PtxError(module_.path, entry.line,
                   limits::limit_message(what, value, limit, "call fewer or smaller device functions"), "");
  }

  // Registers live across each call of fn (a function linked into entry, or entry itself), within the bound.
  std::vector<std::vector<uint32_t>> checked_liveness(const Function& entry, const Function& fn) const {
    if (liveness_words(fn) > kMaxLivenessWords)
      limit_error(entry, "the liveness analysis of " + fn.name + " (instructions x registers / 64)",
                  liveness_words(fn), kMaxLivenessWords);
    std::vector<std::vector<uint32_t>> live;
    try {
      live = live_across_calls(fn, kMaxSavedRegistersPerKernel - saved_registers_);
    } catch (const std::length_error&) {
      limit_error(entry, "the registers live across the calls of kernel " + entry.name + " with its callees",
                  kMaxSavedRegistersPerKernel + 1, kMaxSavedRegistersPerKernel);
    }
    return live;
  }

  // Checked before anything is copied, so a module that would explode when linked fails at once.
  void check_linked_size(const Function& entry, const std::vector<uint32_t>& reached) {
    uint64_t regs = entry.regs.size() + 1;  // + the call-stack pointer
    for (uint32_t index : reached) {
      const Function& fn = module_.functions[index];
      regs += fn.regs.size();
      module_instructions_ += fn.code.size();
    }
    if (regs > limits::kMaxRegistersPerKernel)
      limit_error(entry, "the registers of kernel " + entry.name + " with its callees", regs,
                  limits::kMaxRegistersPerKernel);
    if (module_instructions_ > limits::kMaxLinkedInstructionsPerModule)
      limit_error(entry, "the instructions of the module once callees are linked into its kernels",
                  module_instructions_, limits::kMaxLinkedInstructionsPerModule);
  }

  // The charge of an indirect call per linked callee (CallSite::indirect_frame_bytes).
  std::vector<uint32_t> indirect_charges(const Function& caller, const std::vector<uint32_t>& live,
                                         const std::vector<uint32_t>& reached) const {
    std::vector<uint32_t> charges;
    for (uint32_t function : reached) charges.push_back(call_frame_charge(caller, live, depots_[function]));
    return charges;
  }

  // A kernel with indirect calls can call every function whose address the module takes: those that link
  // (with the functions they call) are appended to `reached`; the others get the reason an indirect call
  // of them fails at run time. Function::indirect_targets holds module function indices until link()
  // turns them into linked indices.
  void add_indirect_targets(uint32_t entry_index, std::vector<uint32_t>& reached) const {
    Function& entry = module_.functions[entry_index];
    std::vector<uint8_t> seen(module_.functions.size(), 0);
    for (uint32_t f : reached) seen[f] = 1;
    seen[entry_index] = 1;
    entry.indirect_targets.assign(module_.function_addresses.size(), IndirectTarget{});
    for (size_t id = 0; id < module_.function_addresses.size(); ++id) {
      const FunctionAddress& address = module_.function_addresses[id];
      IndirectTarget& target = entry.indirect_targets[id];
      if (address.function == kNoFunction) {
        target.why_not = "function " + address.name + " has no body in the module";
        continue;
      }
      const Function& fn = module_.functions[address.function];
      if (fn.is_entry) {
        target.why_not = address.name + " is a kernel (.entry)";
        continue;
      }
      if (!fn.unsupported.empty()) {
        target.why_not =
            fn.unsupported + " (in .func " + fn.name + ", line " + std::to_string(fn.unsupported_line) + ")";
        continue;
      }
      std::vector<uint8_t> seen_with = seen;
      std::vector<uint32_t> reached_with = reached;
      try {
        if (!seen_with[address.function]) {
          seen_with[address.function] = 1;
          reached_with.push_back(address.function);
          walk(address.function, seen_with, reached_with);
        }
      } catch (const LinkRefusal& refusal) {
        target.why_not = refusal.message + " (line " + std::to_string(refusal.line) + ")";
        continue;
      }
      for (size_t i = reached.size(); i < reached_with.size() && target.why_not.empty(); ++i) {
        const Function& callee = module_.functions[reached_with[i]];
        if (!callee.unsupported.empty())
          target.why_not = callee.unsupported + " (in .func " + callee.name + ", line " +
                           std::to_string(callee.unsupported_line) + ")";
      }
      if (!target.why_not.empty()) continue;
      target.linked = address.function;
      seen = std::move(seen_with);
      reached = std::move(reached_with);
    }
  }

  // Appends to `order` every .func reachable from `root` through direct calls that `seen` does not mark, in
  // the order first reached (breadth first, call sites in order), and marks them. Returns whether the code
  // reached makes indirect calls.
  bool walk(uint32_t root, std::vector<uint8_t>& seen, std::vector<uint32_t>& order) const {
    bool indirect = false;
    std::vector<uint32_t> work{root};
    for (size_t next = 0; next < work.size(); ++next) {
      const Function& fn = module_.functions[work[next]];
      for (const Instr& in : fn.code) {
        if (in.op != Op::call || in.call_site == kNoTarget) continue;
        const CallSite& site = fn.call_sites[in.call_site];
        if (site.indirect) {
          indirect = true;
          continue;
        }
        if (in.callee == kNoFunction)
          fail(in.line, "call to .func " + site.callee_name + ", which has no body");
        const Function& callee = module_.functions[in.callee];
        if (callee.is_entry) fail(in.line, "call to kernel " + site.callee_name);
        if (site.args.size() != callee.params.size())
          fail(in.line, "call to " + site.callee_name + " passes " + std::to_string(site.args.size()) +
                            " arguments; it declares " + std::to_string(callee.params.size()));
        if (site.returns.size() != return_symbols(in.callee).size())
          fail(in.line, "call to " + site.callee_name + " receives " + std::to_string(site.returns.size()) +
                            " return values; it declares " +
                            std::to_string(return_symbols(in.callee).size()));
        if (seen[in.callee]) continue;
        seen[in.callee] = 1;
        work.push_back(in.callee);
        order.push_back(in.callee);
      }
    }
    return indirect;
  }

  // Return .params of a .func: its .param symbols outside the call blocks that are not parameters.
  std::vector<uint32_t> return_symbols(uint32_t function) const {
    const Function& fn = module_.functions[function];
    std::vector<uint32_t> out;
    for (uint32_t s = 0; s < module_.symbols.size(); ++s) {
      const Symbol& sym = module_.symbols[s];
      if (sym.function != int32_t(function) || sym.space != Space::param || sym.call_scope) continue;
      const bool is_param =
          std::any_of(fn.params.begin(), fn.params.end(), [&](const Param& p) { return p.sym == s; });
      if (!is_param) out.push_back(s);
    }
    return out;
  }

  // Gives the callee registers and a frame region in the entry and copies its frame symbols there.
  SymbolMap place_frame(uint32_t entry_index, uint32_t function, LinkedCallee& linked) {
    Function& entry = module_.functions[entry_index];
    const Function& fn = module_.functions[function];
    linked.function = function;
    linked.first_reg = static_cast<uint32_t>(entry.regs.size());
    linked.reg_count = static_cast<uint32_t>(fn.regs.size());
    for (const RegInfo& reg : fn.regs) entry.regs.push_back(RegInfo{fn.name + ":" + reg.name, reg.type});
    const uint64_t base = align_up(entry.local_bytes, 16);
    const uint64_t params_base = align_up(base + fn.local_bytes, 16);
    linked.frame_offset = static_cast<uint32_t>(base);
    linked.frame_bytes = static_cast<uint32_t>(params_base + fn.param_bytes - base);
    entry.local_bytes = linked.frame_offset + linked.frame_bytes;
    SymbolMap map;
    const auto count = static_cast<uint32_t>(module_.symbols.size());
    for (uint32_t s = 0; s < count; ++s) {
      const Symbol& sym = module_.symbols[s];
      if (sym.function != int32_t(function)) continue;
      const bool own_param = sym.space == Space::param && !sym.call_scope;
      if (sym.space != Space::local && !sym.call_scope && !own_param) continue;
      Symbol copy = sym;
      copy.function = int32_t(entry_index);
      copy.offset = (own_param ? params_base : base) + sym.offset;
      copy.call_scope = copy.call_scope || own_param;  // ld.param/st.param on it reach the local frame
      map.emplace(s, static_cast<uint32_t>(module_.symbols.size()));
      module_.symbols.push_back(std::move(copy));
    }
    for (const Param& p : fn.params) linked.params.push_back(map.at(p.sym));
    for (uint32_t s : return_symbols(function)) linked.returns.push_back(map.at(s));
    return map;
  }

  void append_code(Function& entry, uint32_t linked_index, const SymbolMap& map,
                   const std::unordered_map<uint32_t, uint32_t>& linked_of,
                   const std::vector<uint32_t>& reached) {
    LinkedCallee& linked = entry.linked_callees[linked_index];
    const Function& fn = module_.functions[linked.function];
    const auto base_pc = static_cast<uint32_t>(entry.code.size());
    linked.entry_pc = base_pc;
    auto reg = [&](uint32_t r) { return r == kNoReg ? r : r + linked.first_reg; };
    auto sym = [&](uint32_t s) {
      auto it = map.find(s);
      return it == map.end() ? s : it->second;
    };
    const std::vector<std::vector<uint32_t>> live = checked_liveness(entry, fn);
    auto relocate = [&](Operand& op) {
      op.reg = reg(op.reg);
      op.sym = op.sym == kNoSym ? op.sym : sym(op.sym);
      for (uint32_t& v : op.vregs) v = reg(v);
    };
    for (uint32_t pc = 0; pc < fn.code.size(); ++pc) {
      Instr in = fn.code[pc];
      in.guard = reg(in.guard);
      for (Operand& op : in.dst) relocate(op);
      for (Operand& op : in.src) relocate(op);
      if (in.target != kNoTarget) in.target += base_pc;
      if (in.op == Op::ret) in.returns_from = linked_index;
      if (in.call_site != kNoTarget) {
        CallSite site = fn.call_sites[in.call_site];
        for (uint32_t& s : site.args) s = sym(s);
        for (uint32_t& s : site.returns) s = sym(s);
        if (site.indirect) {
          site.indirect_frame_bytes = indirect_charges(fn, live[pc], reached);
        } else {
          site.linked = linked_of.at(in.callee);
          site.frame_bytes = call_frame_charge(fn, live[pc], depots_[in.callee]);
        }
        for (uint32_t r : live[pc]) site.saved_regs.push_back(reg(r));
        saved_registers_ += live[pc].size();
        in.call_site = static_cast<uint32_t>(entry.call_sites.size());
        entry.call_sites.push_back(std::move(site));
      }
      entry.code.push_back(in);
    }
    linked.end_pc = static_cast<uint32_t>(entry.code.size());
  }

  Module& module_;
  std::vector<uint32_t> depots_;  // per function: its own .local bytes before linking
  uint64_t module_instructions_ = 0;
  uint64_t saved_registers_ =
      0;  // of the kernel being linked  // every function's code plus the copies linked so far
};

}  // namespace

void link_device_calls(Module& module) {
  Linker linker(module);
  for (uint32_t f = 0; f < module.functions.size(); ++f) {
    if (module.functions[f].is_entry) linker.link(f);
  }
}

uint32_t call_record_bytes(const CallSite& site, const LinkedCallee& callee) {
  // The saved registers, the callee's frame region, and the PC of the call with the bytes charged and the
  // callee (executor_call.cpp).
  return static_cast<uint32_t>(site.saved_regs.size() * 8 + align_up(callee.frame_bytes, 8) + 16);
}

size_t call_groups(const std::array<uint32_t, kWarpSize>& entry_pcs, LaneMask lanes, CallGroups& groups) {
  size_t count = 0;
  while (lanes) {
    const uint32_t entry = entry_pcs[std::countr_zero(lanes)];
    LaneMask same = 0;
    for (LaneMask m = lanes; m; m &= m - 1) {
      const auto lane = static_cast<unsigned>(std::countr_zero(m));
      if (entry_pcs[lane] == entry) same |= LaneMask{1} << lane;
    }
    groups[count++] = CallGroup{entry, same};
    lanes &= ~same;
  }
  return count;
}

bool is_indirect_call(const Function& kernel, uint32_t pc) {
  const Instr& in = kernel.code[pc];
  return in.op == Op::call && in.call_site < kernel.call_sites.size() &&
         kernel.call_sites[in.call_site].indirect;
}

std::vector<uint32_t> possible_callees(const Function& kernel, const CallSite& site) {
  std::vector<uint32_t> out;
  if (!site.indirect) {
    if (site.linked < kernel.linked_callees.size()) out.push_back(site.linked);
    return out;
  }
  for (const IndirectTarget& target : kernel.indirect_targets)
    if (target.linked != kNoTarget) out.push_back(target.linked);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void set_call_stack_bytes(Module& module, uint32_t bytes) {
  if (bytes < kMinCallStackBytes || bytes > kMaxCallStackBytes || bytes % 16 != 0) {
    throw std::invalid_argument("a call stack of " + std::to_string(bytes) + " bytes per thread: expected " +
                                std::to_string(kMinCallStackBytes) + ".." +
                                std::to_string(kMaxCallStackBytes) + ", a multiple of 16");
  }
  for (Function& fn : module.functions) {
    if (!fn.is_entry || fn.call_stack_bytes == 0) continue;  // kernels without calls have no call stack
    fn.call_stack_bytes = bytes;
  }
}

}  // namespace simtlm::ptx
