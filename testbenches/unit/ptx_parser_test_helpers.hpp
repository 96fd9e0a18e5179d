// Helpers of the PTX parser and decoder tests (test_parser.cpp, test_ptx_decode.cpp): a standard kernel to
// wrap instruction lines in, and expectations on load-time errors.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "models/ptx/kernel_layout.hpp"
#include "models/ptx/parser.hpp"

namespace simtlm::ptx::parser_test {

inline const std::string kData = std::string(SIMTLM_SOURCE_DIR) + "/testbenches/ptx/";

// Wraps instruction lines into a kernel with plenty of registers of every kind. The body starts at line 13.
inline std::string kernel(const std::string& body, const std::string& module_extra = "") {
  return ".version 9.0\n.target sm_75\n.address_size 64\n" + module_extra +
         ".global .align 4 .b8 gbuf[64];\n"
         ".visible .entry k(.param .u64 k_param_0)\n{\n"
         ".reg .pred %p<4>;\n.reg .b16 %rs<4>;\n.reg .b32 %r<10>;\n.reg .f32 %f<4>;\n"
         ".reg .b64 %rd<4>;\n.reg .f64 %fd<4>;\n" +
         body + "\n}\n";
}
inline constexpr uint32_t kBodyLine = 13;

inline Module parse(const std::string& body) {
  return parse_ptx(kernel(body), "test.ptx");
}

// Decodes one instruction written inside the standard kernel.
inline Instr decode_one(const std::string& text) {
  Module module = parse(text);
  const auto& code = module.functions.at(0).code;
  // A body that does not end in a terminator gets an implicit ret.
  EXPECT_TRUE(code.size() == 1 || (code.size() == 2 && code[1].op == Op::ret)) << text;
  return code.at(0);
}

inline uint32_t reg_index(const Module& module, const std::string& name) {
  const auto& regs = module.functions.at(0).regs;
  for (uint32_t i = 0; i < regs.size(); ++i) {
    if (regs[i].name == name) return i;
  }
  ADD_FAILURE() << "no register " << name;
  return kNoReg;
}

inline const Symbol& symbol(const Module& module, const std::string& name) {
  for (const Symbol& s : module.symbols) {
    if (s.name == name) return s;
  }
  ADD_FAILURE() << "no symbol " << name;
  return module.symbols.at(0);
}

// Expects a PtxError at `line` whose message contains `needle`.
inline void expect_error(const std::string& text, uint32_t line, const std::string& needle) {
  try {
    parse_ptx(text, "bad.ptx");
    ADD_FAILURE() << "no error for:\n" << text;
  } catch (const PtxError& error) {
    EXPECT_EQ(error.line(), line) << error.what();
    EXPECT_NE(std::string(error.what()).find(needle), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("bad.ptx:" + std::to_string(line)), std::string::npos);
  }
}

inline void expect_body_error(const std::string& body, uint32_t line_in_body, const std::string& needle) {
  expect_error(kernel(body), kBodyLine + line_in_body, needle);
}

// Expects the standard kernel to load but to be refused when selected: a PtxError at the line of the
// unsupported construct whose message contains `needle` and names the kernel.
inline void expect_body_refused(const std::string& body, uint32_t line_in_body, const std::string& needle) {
  const Module module = parse_ptx(kernel(body), "bad.ptx");
  const uint32_t line = kBodyLine + line_in_body;
  try {
    require_supported(module, module.functions.at(0));
    ADD_FAILURE() << "kernel not refused:\n" << body;
  } catch (const PtxError& error) {
    EXPECT_EQ(error.line(), line) << error.what();
    EXPECT_NE(std::string(error.what()).find(needle), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("bad.ptx:" + std::to_string(line)), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("kernel k cannot run"), std::string::npos) << error.what();
  }
}

}  // namespace simtlm::ptx::parser_test
