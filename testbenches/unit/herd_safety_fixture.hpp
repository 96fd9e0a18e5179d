// Small hand-written kernels for the herding safety analysis's tests (test_herd_safety*.cpp): a kernel
// prologue, and a parsed and analysed module with lookups of sites by a comment on their line.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/ptx/herd_safety.hpp"
#include "models/ptx/parser.hpp"

namespace simtlm::ptx {

inline void PrintTo(const Vulnerability& v, std::ostream* os) {
  *os << vulnerable_kind_name(v.kind) << "@" << v.pc;
}

namespace herd_test {

using Reasons = std::vector<Vulnerability>;
using Pcs = std::vector<uint32_t>;

inline const std::string kHeader = ".version 9.0\n.target sm_75\n.address_size 64\n";

// Kernel k(u64 array, u32 n, u32 m). The prologue leaves %rd2 = the array, %r1 = %tid.x, %rd4 = &array[tid],
// %r5 = n and %r6 = m.
inline std::string kernel(const std::string& body, const std::string& module_extra = "") {
  return kHeader + module_extra +
         ".visible .entry k(\n.param .u64 k_param_0,\n.param .u32 k_param_1,\n.param .u32 k_param_2\n)\n{\n"
         ".reg .pred %p<8>;\n.reg .b32 %r<16>;\n.reg .f32 %f<8>;\n.reg .b64 %rd<16>;\n"
         "ld.param.u64 %rd1, [k_param_0];\n"
         "ld.param.u32 %r5, [k_param_1];\n"
         "ld.param.u32 %r6, [k_param_2];\n"
         "cvta.to.global.u64 %rd2, %rd1;\n"
         "mov.u32 %r1, %tid.x;\n"
         "mul.wide.u32 %rd3, %r1, 4;\n"
         "add.s64 %rd4, %rd2, %rd3;\n" +
         body + "\nret;\n}\n";
}

class Analyzed {
 public:
  Analyzed(const std::string& text, const std::string& path, const std::string& entry = "k",
           HerdSafetyRule rule = HerdSafetyRule::strict)
      : text_(text), module_(std::make_unique<Module>(parse_ptx(text, path))) {
    std::string error;
    fn_ = module_->find_entry(entry, &error);
    if (!fn_) throw std::runtime_error(error);
    safety_ = analyze_herd_safety(*module_, *fn_, rule);
  }
  static Analyzed file(const std::string& relative, const std::string& entry,
                       HerdSafetyRule rule = HerdSafetyRule::strict) {
    const std::string path = std::string(SIMTLM_SOURCE_DIR) + "/" + relative;
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return Analyzed(text.str(), relative, entry, rule);
  }

  const HerdSafety& safety() const { return safety_; }
  const Module& module() const { return *module_; }
  const Function& fn() const { return *fn_; }

  // The pc of the instruction on PTX line `line`.
  uint32_t pc_at_line(uint32_t line) const {
    for (uint32_t pc = 0; pc < fn_->code.size(); ++pc) {
      if (fn_->code[pc].line == line) return pc;
    }
    ADD_FAILURE() << "no instruction on line " << line;
    return kNoTarget;
  }
  // The pc of the instruction on the only source line containing `needle`.
  uint32_t pc(const std::string& needle) const { return pc_at_line(line(needle)); }
  // The number of the only source line containing `needle`.
  uint32_t line(const std::string& needle) const {
    std::istringstream lines(text_);
    std::string line;
    uint32_t number = 0, found = 0, matches = 0;
    while (std::getline(lines, line)) {
      ++number;
      if (line.find(needle) != std::string::npos) {
        found = number;
        ++matches;
      }
    }
    if (matches != 1) ADD_FAILURE() << matches << " lines contain " << needle;
    return found;
  }
  const HerdSiteVerdict& branch(const std::string& needle) const {
    return site(safety_.branch_at(pc(needle)));
  }
  const HerdSiteVerdict& load(const std::string& needle) const { return site(safety_.load_at(pc(needle))); }

 private:
  static const HerdSiteVerdict& site(const HerdSiteVerdict* verdict) {
    static const HerdSiteVerdict kMissing = [] {
      HerdSiteVerdict v;
      v.pc = kNoTarget;
      v.safe = false;
      v.note = "missing";
      return v;
    }();
    if (!verdict) ADD_FAILURE() << "no such site";
    return verdict ? *verdict : kMissing;
  }

  std::string text_;
  std::unique_ptr<Module> module_;
  const Function* fn_ = nullptr;
  HerdSafety safety_;
};

inline Pcs site_pcs(const std::vector<HerdSiteVerdict>& sites) {
  Pcs out;
  for (const auto& s : sites) out.push_back(s.pc);
  return out;
}

}  // namespace herd_test
}  // namespace simtlm::ptx
