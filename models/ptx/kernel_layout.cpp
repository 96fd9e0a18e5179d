#include "models/ptx/kernel_layout.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include "models/ptx/limits.hpp"
#include "models/ptx/parser.hpp"

namespace simtlm::ptx {
namespace {

uint64_t align_up(uint64_t value, uint64_t align) {
  return align <= 1 ? value : (value + align - 1) / align * align;
}

// Calls visit(symbol index, instruction) for every symbol an operand of `fn` names.
template <typename Visit>
void for_each_symbol_operand(const Function& fn, Visit visit) {
  for (const Instr& in : fn.code) {
    for (unsigned i = 0; i < in.ndst && i < 2; ++i) {
      if (in.dst[i].sym != kNoSym) visit(in.dst[i].sym, in);
    }
    for (unsigned i = 0; i < in.nsrc && i < 4; ++i) {
      if (in.src[i].sym != kNoSym) visit(in.src[i].sym, in);
    }
  }
}

// Marks every shared symbol an operand of `fn` names.
void mark_shared_references(const Module& module, const Function& fn, std::vector<bool>& used) {
  for_each_symbol_operand(fn, [&](uint32_t sym, const Instr&) {
    if (module.symbols[sym].space == Space::shared) used[sym] = true;
  });
}

// Refuses `kernel` when one of the functions it reaches names a variable the model cannot set up
// (Module::unsupported_symbols): the declaration's line and text, and where the kernel uses it.
void refuse_unsupported_variables(const Module& module, Function& kernel,
                                  const std::vector<uint32_t>& reached) {
  if (module.unsupported_symbols.empty()) return;
  for (uint32_t index : reached) {
    const Function& fn = module.functions[index];
    uint32_t bad = kNoSym, use_line = 0;
    for_each_symbol_operand(fn, [&](uint32_t sym, const Instr& in) {
      if (bad == kNoSym && module.unsupported_symbols.count(sym)) {
        bad = sym;
        use_line = in.line;
      }
    });
    if (bad == kNoSym) continue;
    const UnsupportedSymbol& why = module.unsupported_symbols.at(bad);
    kernel.unsupported = why.message + " (used at line " + std::to_string(use_line) +
                         (index == reached.front() ? "" : " in .func " + fn.name) + ")";
    kernel.unsupported_line = module.symbols[bad].line;
    kernel.unsupported_text = why.text;
    return;
  }
}

void lay_out_shared(const Module& module, Function& kernel, const std::vector<uint32_t>& reached) {
  std::vector<bool> used(module.symbols.size(), false);
  for (uint32_t index : reached) mark_shared_references(module, module.functions[index], used);
  kernel.shared_offsets.assign(module.symbols.size(), kNoSharedOffset);
  uint64_t bytes = 0;
  uint32_t extern_align = 16;
  for (uint32_t sym = 0; sym < module.symbols.size(); ++sym) {
    if (!used[sym]) continue;
    const Symbol& symbol = module.symbols[sym];
    if (symbol.is_extern) {
      extern_align = std::max(extern_align, symbol.align);
      continue;
    }
    bytes = align_up(bytes, symbol.align);
    kernel.shared_offsets[sym] = bytes;
    bytes += symbol.size;
  }
  if (bytes > limits::kMaxStaticSharedBytes) {
    throw PtxError(
        module.path, kernel.line,
        limits::limit_message(
            "the static .shared bytes of kernel " + kernel.name + " (the variables it and its callees use)",
            bytes, limits::kMaxStaticSharedBytes,
            "ptxas refuses more too; use extern .shared with dynamic shared bytes"),
        "");
  }
  kernel.static_shared_bytes = static_cast<uint32_t>(bytes);
  kernel.dynamic_shared_align = extern_align;
  const uint32_t window = shared_layout(kernel, 0).dynamic_offset;
  for (uint32_t sym = 0; sym < module.symbols.size(); ++sym) {
    if (used[sym] && module.symbols[sym].is_extern) kernel.shared_offsets[sym] = window;
  }
}

}  // namespace

SharedLayout shared_layout(const Function& kernel, uint32_t dynamic_bytes) {
  SharedLayout layout;
  layout.static_bytes = kernel.static_shared_bytes;
  layout.dynamic_offset =
      static_cast<uint32_t>(align_up(kernel.static_shared_bytes, std::max(kernel.dynamic_shared_align, 1u)));
  layout.cta_bytes = uint64_t(layout.dynamic_offset) + dynamic_bytes;
  return layout;
}

std::vector<uint32_t> reachable_functions(const Module& module, uint32_t root) {
  std::vector<bool> seen(module.functions.size(), false);
  std::vector<uint32_t> pending = {root};
  seen[root] = true;
  std::vector<uint32_t> reached;
  while (!pending.empty()) {
    const uint32_t index = pending.back();
    pending.pop_back();
    reached.push_back(index);
    for (uint32_t callee : module.functions[index].callees) {
      if (callee < seen.size() && !seen[callee]) {
        seen[callee] = true;
        pending.push_back(callee);
      }
    }
  }
  std::sort(reached.begin() + 1, reached.end());
  return reached;
}

void lay_out_kernels(Module& module) {
  for (Function& fn : module.functions) {
    fn.callees.clear();
    for (const Instr& in : fn.code) {
      if (in.op == Op::call && in.callee != kNoFunction) fn.callees.push_back(in.callee);
      // An indirect call may reach every function whose address the module takes (those with a body that
      // are not kernels): they share the kernel's shared layout, and their unsupported constructs refuse it.
      if (in.op == Op::call && in.call_site != kNoTarget && fn.call_sites[in.call_site].indirect) {
        for (const FunctionAddress& address : module.function_addresses) {
          if (address.function != kNoFunction && !module.functions[address.function].is_entry)
            fn.callees.push_back(address.function);
        }
      }
    }
    std::sort(fn.callees.begin(), fn.callees.end());
    fn.callees.erase(std::unique(fn.callees.begin(), fn.callees.end()), fn.callees.end());
  }
  for (uint32_t index = 0; index < module.functions.size(); ++index) {
    Function& kernel = module.functions[index];
    if (!kernel.is_entry) {
      kernel.static_shared_bytes = 0;
      continue;
    }
    const std::vector<uint32_t> reached = reachable_functions(module, index);
    lay_out_shared(module, kernel, reached);
    if (!kernel.unsupported.empty()) continue;
    for (uint32_t callee : reached) {
      const Function& fn = module.functions[callee];
      if (fn.unsupported.empty()) continue;
      kernel.unsupported = fn.unsupported + " (in .func " + fn.name + ")";
      kernel.unsupported_line = fn.unsupported_line;
      kernel.unsupported_text = fn.unsupported_text;
      break;
    }
    if (kernel.unsupported.empty()) refuse_unsupported_variables(module, kernel, reached);
  }
}

std::optional<PtxError> kernel_refusal(const Module& module, const Function& kernel) {
  if (kernel.unsupported.empty()) return std::nullopt;
  return PtxError(module.path, kernel.unsupported_line,
                  kernel.unsupported + "; kernel " + kernel.name +
                      " cannot run (the module's other kernels are not affected)",
                  kernel.unsupported_text);
}

void require_supported(const Module& module, const Function& kernel) {
  if (std::optional<PtxError> refusal = kernel_refusal(module, kernel)) throw *refusal;
}

std::string launch_bounds_violation(const Function& kernel, uint32_t x, uint32_t y, uint32_t z) {
  const uint64_t threads = uint64_t(x) * y * z;
  const uint32_t* max = kernel.max_threads;
  const uint32_t* req = kernel.required_threads;
  if (max[0] && threads > uint64_t(max[0]) * max[1] * max[2]) {
    return std::to_string(threads) + " threads per block exceed the kernel's __launch_bounds__ (.maxntid " +
           std::to_string(max[0]) + ", " + std::to_string(max[1]) + ", " + std::to_string(max[2]) + ")";
  }
  if (req[0] && (x != req[0] || y != req[1] || z != req[2])) {
    return "a block of (" + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) +
           ") differs from the kernel's required block (.reqntid " + std::to_string(req[0]) + ", " +
           std::to_string(req[1]) + ", " + std::to_string(req[2]) + ")";
  }
  return "";
}

}  // namespace simtlm::ptx
