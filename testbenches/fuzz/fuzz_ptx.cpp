// libFuzzer target: bytes -> PTX text -> module (lexer, parser, decoder, kernel layout, call linking) -> for
// every function the CFG and the reconvergence point of every branch; for every kernel the support check
// and the taint analysis that `simtlm compare` runs. A PtxError is the expected answer to a bad file;
// anything else (a sanitizer report, another exception, a hang) is a finding.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "models/ptx/cfg.hpp"
#include "models/ptx/kernel_layout.hpp"
#include "models/ptx/parser.hpp"
#include "models/ptx/taint.hpp"
#include "testbenches/fuzz/fuzz_common.hpp"

namespace {

using namespace simtlm::ptx;

// Volatile sink: keeps the analyses' answers alive at -O1.
volatile uint64_t g_sink = 0;

void walk_function(const Module& module, const Function& fn) {
  const Cfg cfg(fn);
  for (uint32_t pc = 0; pc < fn.code.size(); ++pc) {
    g_sink = g_sink + cfg.block_of(pc);
    if (cfg.is_conditional_branch(pc)) g_sink = g_sink + cfg.reconvergence_pc(pc);
  }
  for (uint32_t b = 0; b < cfg.blocks().size(); ++b) {
    if (b != cfg.virtual_exit()) g_sink = g_sink + cfg.ipdom_block(b);
  }
  if (!fn.is_entry) return;
  try {
    require_supported(module, fn);
  } catch (const PtxError&) {
    return;  // an unsupported construct refuses the kernel: nothing downstream sees it
  }
  g_sink = g_sink + shared_layout(fn, 0).cta_bytes;
  const TaintAnalysis taint(module, fn);
  for (const BranchTaint& branch : taint.branches()) {
    g_sink = g_sink + static_cast<uint64_t>(taint.at(branch.pc).kind) + branch.sources;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const Module module = parse_ptx(std::string(reinterpret_cast<const char*>(data), size), "fuzz.ptx");
    for (const Function& fn : module.functions) walk_function(module, fn);
  } catch (const PtxError&) {
  } catch (const std::exception& e) {
    simtlm::fuzz::unexpected_exception("fuzz_ptx", e);
  }
  return 0;
}
