// Unit tests of the PTX lexer and parser: directives, layout, operands (no SystemC).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <string>

#include "models/ptx/kernel_layout.hpp"
#include "models/ptx/parser.hpp"
#include "testbenches/unit/ptx_parser_test_helpers.hpp"

namespace simtlm::ptx {
namespace {

using namespace parser_test;

// ---- Directives and layout ---------------------------------------------------------------------------

TEST(PtxParser, HandWrittenModuleDirectivesAndLayout) {
  Module module = load_ptx_file(kData + "handwritten_forms.ptx");
  EXPECT_EQ(module.version, "7.0");
  EXPECT_EQ(module.target, "sm_61");
  EXPECT_EQ(module.address_size, 64u);
  ASSERT_EQ(module.files.size(), 3u);
  EXPECT_EQ(module.files[1], "/tmp/forms.cu");
  EXPECT_EQ(module.files[2], "/tmp/inc.h");

  const Symbol& scalar = symbol(module, "kScalar");
  EXPECT_EQ(scalar.space, Space::constant);
  EXPECT_EQ(scalar.init, (std::vector<uint8_t>{5, 0, 0, 0}));
  const Symbol& floats = symbol(module, "kFloats");
  ASSERT_EQ(floats.init.size(), 12u);
  uint32_t bits[3];
  std::memcpy(bits, floats.init.data(), 12);
  EXPECT_EQ(bits[0], 0x3F800000u);
  EXPECT_EQ(bits[1], std::bit_cast<uint32_t>(2.5f));
  EXPECT_EQ(bits[2], std::bit_cast<uint32_t>(-1.0f));
  const Symbol& dbl = symbol(module, "gDouble");
  uint64_t dbits;
  std::memcpy(&dbits, dbl.init.data(), 8);
  EXPECT_EQ(std::bit_cast<double>(dbits), 2.5);
  const Symbol& ints = symbol(module, "gInts");
  EXPECT_EQ(ints.size, 16u);
  EXPECT_EQ(ints.init, (std::vector<uint8_t>{1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff, 0x10, 0, 0, 0, 0, 0, 0, 0}));
  const Symbol& str = symbol(module, "$str");
  EXPECT_EQ(str.size, 6u);
  EXPECT_EQ(str.init, (std::vector<uint8_t>{104, 105, 0, 0, 0, 0}));

  // Shared: module_shared [0,100), fn_shared aligned 8 at 104, total 116; extern at 128 (aligned to 16).
  EXPECT_EQ(symbol(module, "module_shared").offset, 0u);
  EXPECT_EQ(symbol(module, "fn_shared").offset, 104u);
  EXPECT_EQ(symbol(module, "dynamic_a").offset, 128u);
  EXPECT_EQ(symbol(module, "dynamic_b").offset, 128u);
  EXPECT_TRUE(symbol(module, "dynamic_b").is_extern);
  EXPECT_EQ(symbol(module, "dynamic_b").size, 0u);

  ASSERT_EQ(module.functions.size(), 2u);
  EXPECT_FALSE(module.functions[0].is_entry);  // the .weak .func
  const Function* entry = module.find_entry("forms", nullptr);
  ASSERT_NE(entry, nullptr);
  const Function& f = *entry;
  EXPECT_TRUE(f.is_entry);
  EXPECT_EQ(f.static_shared_bytes, 116u);
  EXPECT_EQ(f.local_bytes, 40u);
  EXPECT_EQ(symbol(module, "__local_depot0").offset, 0u);
  ASSERT_EQ(f.params.size(), 3u);
  EXPECT_EQ(f.params[0].offset, 0u);
  EXPECT_EQ(f.params[0].type, Type::u64);
  EXPECT_EQ(f.params[1].offset, 8u);
  EXPECT_EQ(f.params[2].offset, 16u);
  EXPECT_EQ(f.params[2].size, 16u);
  EXPECT_EQ(f.params[2].align, 8u);
  EXPECT_EQ(f.param_bytes, 32u);
  EXPECT_EQ(module.symbols[f.params[2].sym].name, "forms_param_2");
  EXPECT_EQ(f.regs.size(), 4u + 20u + 4u + 6u + 1u);

  // .loc is attached to the following instructions.
  EXPECT_EQ(f.code[0].loc_file, 1u);
  EXPECT_EQ(f.code[0].loc_line, 11u);
  const Instr& vote = f.code[7];
  EXPECT_EQ(vote.op, Op::vote);
  EXPECT_EQ(vote.loc_file, 2u);
  EXPECT_EQ(vote.loc_line, 20u);
  EXPECT_EQ(vote.src[1].kind, OperandKind::imm);  // old vote without .sync: whole warp
  EXPECT_EQ(vote.src[1].imm, 0xffffffffu);
  const Instr& shfl = f.code[8];
  EXPECT_EQ(shfl.sub, Sub::s_down);
  EXPECT_EQ(shfl.ndst, 2);
  EXPECT_EQ(shfl.src[3].imm, 0xffffffffu);
  const Instr& bra = f.code[10];
  EXPECT_EQ(bra.op, Op::bra);
  EXPECT_TRUE(bra.guard_neg);
  EXPECT_EQ(bra.target, f.labels.at("$L__BB0_2"));
  EXPECT_EQ(f.code[bra.target].op, Op::lop3);
  EXPECT_EQ(f.code.back().op, Op::ret);
}

TEST(PtxParser, NvccModulesParse) {
  for (const char* name : {"nvcc_mix.ptx"}) {
    Module module = load_ptx_file(kData + name);
    EXPECT_EQ(module.version, "9.0");
    EXPECT_GT(module.functions.size(), 3u);
    for (const Function& f : module.functions) {
      for (const Instr& instr : f.code) {
        if (instr.op == Op::bra) {
          EXPECT_LT(instr.target, f.code.size());
        }
      }
    }
  }
}

// nvcc_mix2's `halves` kernel uses half2 arithmetic, which the functional model does not execute: that
// kernel is refused with the line when selected; the module's other kernels load.
TEST(PtxParser, HalfArithmeticRefusesItsKernel) {
  const Module module = load_ptx_file(kData + "nvcc_mix2.ptx");
  const Function* halves = module.find_entry("halves", nullptr);
  ASSERT_NE(halves, nullptr);
  try {
    require_supported(module, *halves);
    FAIL() << "expected a PtxError";
  } catch (const PtxError& e) {
    EXPECT_EQ(e.line(), 198u);
    EXPECT_THAT(e.what(), ::testing::HasSubstr("half-precision arithmetic is not supported"));
    EXPECT_THAT(e.what(), ::testing::HasSubstr("mul.f16x2"));
    EXPECT_THAT(e.what(), ::testing::HasSubstr("kernel _Z6halvesP7__half2P13__nv_bfloat16PfPdPi cannot run"));
  }
  for (const char* other : {"syncs", "loops", "sel"}) {
    const Function* fn = module.find_entry(other, nullptr);
    ASSERT_NE(fn, nullptr) << other;
    EXPECT_NO_THROW(require_supported(module, *fn)) << other;
  }
}

TEST(PtxParser, NvccPrintfAssertCallSequences) {
  Module module = load_ptx_file(kData + "nvcc_mix.ptx");
  const Function* hello = module.find_entry("hello", nullptr);
  ASSERT_NE(hello, nullptr);
  EXPECT_EQ(hello->name, "_Z5helloPii");
  int calls = 0;
  for (const Instr& instr : hello->code) {
    if (instr.op != Op::call) continue;
    ++calls;
    EXPECT_TRUE(instr.flags & kUni);
    for (int i = 0; i < instr.nsrc; ++i) {
      ASSERT_EQ(instr.src[i].kind, OperandKind::sym_addr);
      const Symbol& param = module.symbols[instr.src[i].sym];
      EXPECT_TRUE(param.call_scope);
      EXPECT_EQ(param.space, Space::param);
      EXPECT_LE(param.offset + param.size, hello->local_bytes);
      EXPECT_GE(param.offset, 16u);  // after the 16-byte __local_depot0
    }
    if (instr.sub == Sub::call_vprintf) {
      EXPECT_EQ(instr.nsrc, 2);
      EXPECT_EQ(instr.ndst, 1);
    } else {
      EXPECT_EQ(instr.sub, Sub::call_assertfail);
      EXPECT_EQ(instr.nsrc, 4);
      EXPECT_EQ(instr.ndst, 0);
    }
  }
  EXPECT_EQ(calls, 2);
  EXPECT_GT(hello->code.front().loc_line, 0u);
}

TEST(PtxParser, FindEntryByMangledAndUnmangledName) {
  Module module = load_ptx_file(kData + "nvcc_mix.ptx");
  std::string error;
  EXPECT_NE(module.find_entry("_Z6reducePKfPfi", &error), nullptr);
  EXPECT_NE(module.find_entry("reduce", &error), nullptr);
  EXPECT_EQ(module.find_entry("nope", &error), nullptr);
  EXPECT_NE(error.find("nope"), std::string::npos);
  Module templates = load_ptx_file(kData + "nvcc_templates.ptx");
  const Function* scale = templates.find_entry("ns::scale<float>", &error);
  ASSERT_NE(scale, nullptr) << error;
  EXPECT_EQ(scale->name, "_ZN2ns5scaleIfEEvPT_S1_i");
  EXPECT_NE(templates.find_entry("ns::scale<double>", &error), nullptr);
  const Function* by_struct = templates.find_entry("bystruct", &error);
  ASSERT_NE(by_struct, nullptr);
  EXPECT_EQ(by_struct->params[0].size, 24u);
  EXPECT_EQ(by_struct->params[0].align, 8u);
  EXPECT_EQ(by_struct->params[1].offset, 24u);
  std::string twice =
      ".version 9.0\n.target sm_75\n.address_size 64\n"
      ".entry _Z1fi(.param .u32 a) { ret; }\n.entry _Z1ff(.param .f32 a) { ret; }\n";
  Module overloaded = parse_ptx(twice, "t.ptx");
  EXPECT_EQ(overloaded.find_entry("f", &error), nullptr);
  EXPECT_NE(error.find("ambiguous"), std::string::npos);
  EXPECT_NE(overloaded.find_entry("_Z1ff", &error), nullptr);
}

// Each kernel lays out only the shared variables it references (a is used by neither kernel).
TEST(PtxParser, SharedLayoutIsPerKernelWithExternAliases) {
  std::string text =
      ".version 9.0\n.target sm_75\n.address_size 64\n"
      ".shared .align 4 .b8 a[10];\n.extern .shared .align 16 .b8 dyn[];\n"
      ".entry k1() { .shared .align 8 .f64 b[3]; .reg .b32 %r<2>; mov.u32 %r0, dyn; mov.u32 %r1, b; ret; }\n"
      ".entry k2() { .local .align 4 .b8 depot[7]; .reg .b64 %rd1; mov.u64 %rd1, depot; ret; }\n";
  Module module = parse_ptx(text, "t.ptx");
  EXPECT_EQ(symbol(module, "a").offset, 0u);
  EXPECT_EQ(symbol(module, "b").offset, 16u);
  EXPECT_EQ(symbol(module, "dyn").offset, 48u);
  EXPECT_EQ(module.functions[0].static_shared_bytes, 24u);
  EXPECT_EQ(module.functions[0].shared_offsets[module.symbols.size() - 2], 0u);  // b
  EXPECT_EQ(shared_layout(module.functions[0], 8).dynamic_offset, 32u);
  EXPECT_EQ(module.functions[1].static_shared_bytes, 0u);
  EXPECT_EQ(module.functions[1].local_bytes, 7u);
  const Instr& mov = module.functions[0].code[0];
  EXPECT_EQ(mov.src[0].kind, OperandKind::sym_addr);
  EXPECT_EQ(module.symbols[mov.src[0].sym].name, "dyn");
}

TEST(PtxParser, SkipsSectionsCommentsAndDirectivesEndingAtNewline) {
  std::string text =
      "// header\n.version 7.0 /* inline */\n.target sm_70, debug\n.address_size 64\n"
      ".entry k() {\n.loc 1 3 4\nret;\n}\n"
      ".section .debug_str\n{\n$L__info_string0:\n.b8 95,90,0\n/* } */ \"}\"\n}\n"
      ".section .debug_abbrev { .b8 1 }\n";
  Module module = parse_ptx(text, "t.ptx");
  EXPECT_EQ(module.version, "7.0");
  EXPECT_EQ(module.target, "sm_70");
  EXPECT_EQ(module.functions[0].code.size(), 1u);
  EXPECT_EQ(module.functions[0].code[0].line, 7u);
}

TEST(PtxParser, ExternAndWeakFunctionPrototypesAndBlockScopedNames) {
  std::string text =
      ".version 9.0\n.target sm_75\n.address_size 64\n"
      ".extern .func (.param .b32 func_retval0) vprintf(.param .b64 p0, .param .b64 p1);\n"
      ".weak .func helper(.param .b32 x) .noreturn;\n"
      ".visible .entry k() .reqntid 32 .maxnreg 64 {\n.reg .b64 %rd<2>;\n"
      "{ .reg .b32 temp_param_reg; .param .b64 param0; st.param.b64 [param0+0], %rd0;\n"
      "  .param .b64 param1; st.param.b64 [param1], 0; .param .b32 retval0;\n"
      "  call.uni (retval0), vprintf, (param0, param1); ld.param.b32 temp_param_reg, [retval0+0]; }\n"
      "{ .reg .b32 temp_param_reg; .param .b64 param0; st.param.b64 [param0], %rd1;\n"
      "  .param .b64 param1; call vprintf, (param0, param1); }\nret;\n}\n";
  Module module = parse_ptx(text, "t.ptx");
  const Function& f = module.functions[0];
  ASSERT_EQ(f.code.size(), 7u);
  EXPECT_EQ(f.code[0].op, Op::st);
  EXPECT_EQ(f.code[0].space, Space::param);
  EXPECT_EQ(module.symbols[f.code[0].src[0].sym].name, "param0");
  EXPECT_TRUE(module.symbols[f.code[0].src[0].sym].call_scope);
  EXPECT_EQ(f.code[2].op, Op::call);
  EXPECT_EQ(f.code[2].dst[0].kind, OperandKind::sym_addr);
  EXPECT_EQ(f.code[5].op, Op::call);
  EXPECT_FALSE(f.code[5].flags & kUni);
  EXPECT_EQ(f.code[5].ndst, 0);
  EXPECT_NE(f.code[4].src[0].sym, f.code[0].src[0].sym);  // second block's param0 is a new symbol
  EXPECT_EQ(f.local_bytes, 8u + 8 + 4 + 4 /*align*/ + 8 + 8);
}

// ---- Operands ----------------------------------------------------------------------------------------

TEST(PtxOperands, AllForms) {
  Module module = parse(
      "ld.global.u32 %r1, [%rd1+8];\n"
      "ld.global.u32 %r1, [%rd1+-4];\n"
      "ld.global.u32 %r1, [gbuf];\n"
      "ld.global.u32 %r1, [gbuf+12];\n"
      "ld.shared.u32 %r1, [256];\n"
      "mov.u32 %r1, -7;\n"
      "mov.u32 %r1, 0x1FU;\n"
      "mov.f32 %f1, 0f3F800000;\n"
      "mov.f64 %fd1, 0d3FF8000000000000;\n"
      "mov.f32 %f1, 1.5;\n"
      "mov.f64 %fd1, 0f3F800000;\n"
      "mov.u32 %r1, %ctaid.y;\n"
      "mov.u64 %rd1, gbuf;\n"
      "mov.b64 %rd1, {%r1, %r2};\n"
      "mov.b64 {%r1, _}, %rd1;\n"
      "ld.param.u64 %rd2, [k_param_0];\n"
      "mov.b32 %r3, {0, %rs1};");
  const auto& code = module.functions[0].code;
  EXPECT_EQ(code[0].src[0].reg, reg_index(module, "%rd1"));
  EXPECT_EQ(code[0].src[0].imm, 8u);
  EXPECT_EQ(code[0].src[0].sym, kNoSym);
  EXPECT_EQ(static_cast<int64_t>(code[1].src[0].imm), -4);
  EXPECT_EQ(code[2].src[0].reg, kNoReg);
  EXPECT_EQ(module.symbols[code[2].src[0].sym].name, "gbuf");
  EXPECT_EQ(code[3].src[0].imm, 12u);
  EXPECT_EQ(code[4].src[0].reg, kNoReg);
  EXPECT_EQ(code[4].src[0].sym, kNoSym);
  EXPECT_EQ(code[4].src[0].imm, 256u);
  EXPECT_EQ(static_cast<int64_t>(code[5].src[0].imm), -7);
  EXPECT_EQ(code[6].src[0].imm, 31u);
  EXPECT_EQ(code[7].src[0].imm, 0x3F800000u);
  EXPECT_EQ(code[8].src[0].imm, std::bit_cast<uint64_t>(1.5));
  EXPECT_EQ(code[9].src[0].imm, std::bit_cast<uint32_t>(1.5f));
  EXPECT_EQ(code[10].src[0].imm, std::bit_cast<uint64_t>(1.0));  // f32 literal widened for f64
  EXPECT_EQ(code[11].src[0].kind, OperandKind::special);
  EXPECT_EQ(code[11].src[0].sreg, SpecialReg::ctaid_y);
  EXPECT_EQ(code[12].src[0].kind, OperandKind::sym_addr);
  EXPECT_EQ(code[13].src[0].kind, OperandKind::vec);
  EXPECT_EQ(code[13].src[0].count, 2);
  EXPECT_EQ(code[13].src[0].vregs[1], reg_index(module, "%r2"));
  EXPECT_EQ(code[14].dst[0].kind, OperandKind::vec);
  EXPECT_EQ(code[14].dst[0].vregs[1], kNoReg);
  EXPECT_EQ(code[15].space, Space::param);
  EXPECT_EQ(module.symbols[code[15].src[0].sym].name, "k_param_0");
  // Literal inside a vector: a hidden register set by a mov just before.
  EXPECT_EQ(code[16].op, Op::mov);
  EXPECT_EQ(code[16].src[0].kind, OperandKind::imm);
  EXPECT_EQ(code[17].src[0].vregs[0], code[16].dst[0].reg);
}

TEST(PtxOperands, SpecialRegisters) {
  const char* names[] = {"%tid.x",       "%tid.y",       "%tid.z",       "%ntid.x",      "%ntid.y",
                         "%ntid.z",      "%ctaid.x",     "%ctaid.y",     "%ctaid.z",     "%nctaid.x",
                         "%nctaid.y",    "%nctaid.z",    "%laneid",      "%warpid",      "%nwarpid",
                         "%smid",        "%nsmid",       "%gridid",      "%clock",       "%clock_hi",
                         "%clock64",     "%globaltimer", "%lanemask_eq", "%lanemask_le", "%lanemask_lt",
                         "%lanemask_ge", "%lanemask_gt"};
  for (size_t i = 0; i < std::size(names); ++i) {
    Instr instr = decode_one(std::string("mov.u64 %rd1, ") + names[i] + ";");
    EXPECT_EQ(instr.src[0].kind, OperandKind::special);
    EXPECT_EQ(static_cast<size_t>(instr.src[0].sreg), i) << names[i];
  }
}

TEST(PtxOperands, GuardsAndLines) {
  Module module = parse("@%p1 add.s32 %r1, %r2, 3;\n@!%p2 ret;\nexit;");
  const auto& code = module.functions[0].code;
  EXPECT_EQ(code[0].guard, reg_index(module, "%p1"));
  EXPECT_FALSE(code[0].guard_neg);
  EXPECT_EQ(code[0].line, kBodyLine);
  EXPECT_EQ(code[1].guard, reg_index(module, "%p2"));
  EXPECT_TRUE(code[1].guard_neg);
  EXPECT_EQ(code[2].guard, kNoReg);
  EXPECT_EQ(code[2].line, kBodyLine + 2);
}

}  // namespace
}  // namespace simtlm::ptx
