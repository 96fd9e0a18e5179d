// Every count and size a PTX file controls has a limit (models/ptx/limits.hpp): a file just over it fails at
// load with the exact file:line and message, a file at it loads, and both are fast.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "models/ptx/limits.hpp"
#include "models/ptx/parser.hpp"

namespace simtlm::ptx {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr const char* kFile = "hostile.ptx";

// Module text: three header lines, then `body` from line 4.
std::string module(const std::string& body) {
  return ".version 9.0\n.target sm_75\n.address_size 64\n" + body;
}

// A kernel whose declarations start at line 6 and whose body follows them.
std::string kernel(const std::string& declarations, const std::string& body = "ret;\n") {
  return module(".visible .entry k()\n{\n" + declarations + body + "}\n");
}

// Expects the load to fail with `message` as the whole first line after "hostile.ptx:LINE: ".
void expect_error(const std::string& text, uint32_t line, const std::string& message) {
  try {
    parse_ptx(text, kFile);
    ADD_FAILURE() << "loaded, expected " << message;
  } catch (const PtxError& error) {
    EXPECT_EQ(error.file(), kFile);
    EXPECT_EQ(error.line(), line) << error.what();
    const std::string what = error.what();
    EXPECT_EQ(what.substr(0, what.find('\n')),
              std::string(kFile) + ":" + std::to_string(line) + ": " + message);
  }
}

std::string over(const std::string& what, uint64_t value, uint64_t limit, const std::string& advice) {
  return limits::limit_message(what, value, limit, advice.c_str());
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST(PtxLimits, MessageNamesValueLimitAndAdvice) {
  EXPECT_EQ(limits::limit_message("the x", 5, 4, "do y"),
            "the x is 5, over simtlm's limit of 4 (docs/reliability.md): do y");
  EXPECT_EQ(limits::limit_message("the x", 5, 4, ""),
            "the x is 5, over simtlm's limit of 4 (docs/reliability.md)");
}

TEST(PtxLimits, HugeRegisterRangeFailsAtOnce) {
  const auto start = std::chrono::steady_clock::now();
  expect_error(
      kernel(".reg .b32 %r<100000000>;\n"), 6,
      over("the number of registers of k with %r<100000000>", 100000000, 65536, "declare fewer registers"));
  EXPECT_LT(seconds_since(start), 1.0);
}

TEST(PtxLimits, RegisterRangeJustOverFails) {
  expect_error(kernel(".reg .b32 %r<65537>;\n"), 6,
               over("the number of registers of k with %r<65537>", 65537, 65536, "declare fewer registers"));
}

TEST(PtxLimits, RegisterRangeAtLimitLoadsFast) {
  const auto start = std::chrono::steady_clock::now();
  const Module loaded = parse_ptx(kernel(".reg .b32 %r<65536>;\n", "mov.u32 %r65535, 1;\nret;\n"), kFile);
  EXPECT_EQ(loaded.functions.at(0).regs.size(), 65536u);
  EXPECT_EQ(loaded.functions.at(0).regs.back().name, "%r65535");
  EXPECT_LT(seconds_since(start), 2.0);
}

TEST(PtxLimits, RegistersOfAllDeclarationsCount) {
  expect_error(kernel(".reg .b32 %r<40000>;\n.reg .b64 %rd<25536>;\n.reg .pred %p;\n"), 8,
               over("the number of registers of k", 65537, 65536, "declare fewer registers"));
  expect_error(kernel(".reg .b32 %r<40000>;\n.reg .b64 %rd<25537>;\n"), 7,
               over("the number of registers of k with %rd<25537>", 65537, 65536, "declare fewer registers"));
}

TEST(PtxLimits, RegisterRangeCountNearTwoToThe64DoesNotWrap) {
  expect_error(kernel(".reg .b32 %a;\n.reg .b32 %r<18446744073709551615>;\n"), 7,
               over("the number of registers of k with %r<18446744073709551615>", 18446744073709551615ull,
                    65536, "declare fewer registers"));
}

const char* kSharedAdvice =
    "larger shared arrays must be extern .shared, sized by the launch's dynamic shared bytes";
const char* kLocalAdvice =
    "per-thread local memory is limited as in CUDA; keep large arrays in global memory";
const char* kGlobalAdvice = "allocate large arrays as launch buffers instead of __device__ variables";

TEST(PtxLimits, SharedVariableOverAndAtLimit) {
  expect_error(module(".shared .align 4 .b8 tile[49153];\n"), 4,
               over("the size in bytes of .shared tile", 49153, 49152, kSharedAdvice));
  EXPECT_NO_THROW(parse_ptx(module(".shared .align 4 .b8 tile[49152];\n"), kFile));
}

TEST(PtxLimits, FourGibSharedIsALocatedError) {
  expect_error(kernel(".reg .b32 %r<2>;\n.shared .align 4 .b8 huge[4294967296];\n"), 7,
               over("the size in bytes of .shared huge", 4294967296ull, 49152, kSharedAdvice));
}

TEST(PtxLimits, KernelStaticSharedSumOverLimit) {
  const std::string two_tiles = ".shared .align 4 .b8 a[32768];\n.shared .align 4 .b8 b[32768];\n";
  const std::string text = module(two_tiles +
                                  ".visible .entry k()\n{\n.reg .b32 %r<2>;\nmov.u32 %r0, a;\n"
                                  "mov.u32 %r1, b;\nret;\n}\n");
  expect_error(text, 6,
               over("the static .shared bytes of kernel k (the variables it and its callees use)", 65536,
                    49152, "ptxas refuses more too; use extern .shared with dynamic shared bytes"));
  // A kernel that uses one of them stays under the limit.
  const Module loaded = parse_ptx(
      module(two_tiles + ".visible .entry k()\n{\n.reg .b32 %r<2>;\nmov.u32 %r0, a;\nret;\n}\n"), kFile);
  EXPECT_EQ(loaded.functions.at(0).static_shared_bytes, 32768u);
}

TEST(PtxLimits, LocalVariableOverAndAtLimit) {
  expect_error(kernel(".local .align 4 .b8 stack[524289];\n"), 6,
               over("the size in bytes of .local stack", 524289, 524288, kLocalAdvice));
  const Module loaded = parse_ptx(kernel(".local .align 4 .b8 stack[524288];\n"), kFile);
  EXPECT_EQ(loaded.functions.at(0).local_bytes, 524288u);
}

TEST(PtxLimits, OneGigabyteLocalIsALocatedError) {
  expect_error(kernel(".local .align 8 .b8 big[1000000000];\n"), 6,
               over("the size in bytes of .local big", 1000000000, 524288, kLocalAdvice));
}

TEST(PtxLimits, LocalVariablesOfAFunctionSum) {
  expect_error(
      kernel(".local .align 4 .b8 a[300000];\n.local .align 4 .b8 b[300000];\n"), 7,
      over("the .local bytes per thread of k (variables and call parameters)", 600000, 524288, kLocalAdvice));
}

TEST(PtxLimits, GlobalVariableOverAndAtLimit) {
  expect_error(module(".global .align 4 .b8 g[1073741825];\n"), 4,
               over("the size in bytes of .global g", 1073741825, 1073741824, kGlobalAdvice));
  EXPECT_NO_THROW(parse_ptx(module(".global .align 4 .b8 g[1073741824];\n"), kFile));
}

TEST(PtxLimits, GlobalVariablesOfAModuleSum) {
  std::string text;
  for (int i = 0; i < 5; ++i) text += ".global .align 4 .b8 g" + std::to_string(i) + "[1073741824];\n";
  expect_error(module(text), 8,
               over("the module's .global variables in bytes", 5368709120ull, 4294967296ull, kGlobalAdvice));
}

TEST(PtxLimits, ConstVariablesOverLimit) {
  expect_error(module(".const .align 4 .b8 c[65537];\n"), 4,
               over("the size in bytes of .const c", 65537, 65536, "the constant bank holds 64 KiB"));
  expect_error(
      module(".const .align 4 .b8 a[40000];\n.const .align 4 .b8 b[40000];\n"), 5,
      over("the module's .const variables in bytes", 80000, 65536, "the constant bank holds 64 KiB"));
  EXPECT_NO_THROW(parse_ptx(module(".const .align 4 .b8 c[65536];\n"), kFile));
}

TEST(PtxLimits, ArrayDimensionProductOverflowIsCaught) {
  expect_error(module(".global .b8 g[4294967296][4294967296];\n"), 4,
               "array dimensions overflow 64 bits: the product of [4294967296][4294967296] is too large");
  // The element count fits 64 bits but the byte count does not: reported as over the limit, not wrapped.
  expect_error(module(".global .u64 g[2305843009213693952];\n"), 4,
               over("the size in bytes of .global g", UINT64_MAX, 1073741824, kGlobalAdvice));
  expect_error(module(".shared .b8 s[65536][65536][0];\n.shared .u32 t[4096][4];\n"), 5,
               over("the size in bytes of .shared t", 65536, 49152, kSharedAdvice));
}

TEST(PtxLimits, InitializerLengthAndNesting) {
  expect_error(module(".global .u32 g[2] = {1, 2, 3};\n"), 4, "too many initializers: the variable holds 2");
  std::string deep = "1";
  for (int i = 0; i < 64; ++i) deep = "{" + deep + "}";
  EXPECT_NO_THROW(parse_ptx(module(".global .u32 g[1] = " + deep + ";\n"), kFile));
  expect_error(module(".global .u32 g[1] = {" + deep + "};\n"), 4,
               over("the nesting depth of '{' in an initializer", 65, 64, "flatten the initializer"));
  // Values become bytes as they are read: a long open-ended list costs its own size, not a parsed operand
  // per value.
  std::string many = "7";
  for (int i = 1; i < 1000000; ++i) many += ",7";
  const Module loaded = parse_ptx(module(".global .b8 table[] = {" + many + "};\n"), kFile);
  ASSERT_EQ(loaded.symbols.at(0).size, 1000000u);
  EXPECT_EQ(loaded.symbols.at(0).init.size(), 1000000u);
  EXPECT_EQ(loaded.symbols.at(0).init.back(), 7u);
  expect_error(module(".global .b8 g[67108865] = {1};\n"), 4,
               over("the size in bytes of initialized variable g", 67108865, 67108864,
                    "fill large tables from a launch buffer instead"));
}

TEST(PtxLimits, ParamBytesAndCount) {
  expect_error(module(".visible .entry k(.param .align 4 .b8 p[32765])\n{\nret;\n}\n"), 4,
               over("the size in bytes of .param p", 32765, 32764, "pass large data through a pointer"));
  EXPECT_NO_THROW(parse_ptx(module(".visible .entry k(.param .align 4 .b8 p[32764])\n{\nret;\n}\n"), kFile));
  expect_error(module(".visible .entry k(.param .u64 a[2048], .param .u64 b[2048])\n{\nret;\n}\n"), 4,
               over("the .param bytes of k", 32768, 32764, "pass large data through a pointer"));
  std::string params;
  for (int i = 0; i < 1024; ++i) params += std::string(i ? ",\n" : "") + ".param .u8 p" + std::to_string(i);
  EXPECT_NO_THROW(parse_ptx(module(".visible .entry k(" + params + ")\n{\nret;\n}\n"), kFile));
  expect_error(module(".visible .entry k(" + params + ",\n.param .u8 extra)\n{\nret;\n}\n"), 4 + 1024,
               over("the number of parameters", 1025, 1024, "pass a struct or a pointer instead"));
}

TEST(PtxLimits, LaunchBoundsProduct) {
  expect_error(module(".visible .entry k()\n.maxntid 1024, 2, 1\n{\nret;\n}\n"), 5,
               over("the thread count of .maxntid", 2048, 1024, "a CUDA block holds at most 1024 threads"));
  expect_error(module(".visible .entry k()\n.reqntid 64, 32\n{\nret;\n}\n"), 5,
               over("the thread count of .reqntid", 2048, 1024, "a CUDA block holds at most 1024 threads"));
  EXPECT_NO_THROW(parse_ptx(module(".visible .entry k()\n.maxntid 32, 32, 1\n{\nret;\n}\n"), kFile));
}

TEST(PtxLimits, Alignment) {
  expect_error(module(".global .align 3 .b8 g[4];\n"), 4, ".align 3 is not a power of two");
  expect_error(module(".global .align 0 .b8 g[4];\n"), 4, ".align 0 is not a power of two");
  expect_error(module(".global .align 8192 .b8 g[4];\n"), 4,
               over("the alignment", 8192, 4096, "align to at most a 4 KiB page"));
  expect_error(module(".visible .entry k(.param .align 9223372036854775808 .b8 p[4])\n{\nret;\n}\n"), 4,
               over("the alignment", 9223372036854775808ull, 4096, "align to at most a 4 KiB page"));
  EXPECT_NO_THROW(parse_ptx(module(".global .align 4096 .b8 g[4];\n"), kFile));
}

TEST(PtxLimits, VectorWidth) {
  // ld/st .v8 are well-formed PTX for newer targets but the IR holds four elements: only the kernel is
  // refused, at the instruction's line, and parsing goes on.
  const Module loaded =
      parse_ptx(kernel(".reg .b32 %r<8>;\n.reg .b64 %rd;\n",
                       "ld.global.v8.u32 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd];\nret;\n"),
                kFile);
  EXPECT_EQ(loaded.functions.at(0).unsupported, "vector operands of more than 4 elements are not supported");
  EXPECT_EQ(loaded.functions.at(0).unsupported_line, 8u);
  EXPECT_EQ(loaded.functions.at(0).code.size(), 1u);  // the ret
}

TEST(PtxLimits, FunctionCount) {
  std::string prototypes;
  for (int i = 0; i < 1024; ++i) prototypes += ".extern .func f" + std::to_string(i) + "();\n";
  EXPECT_NO_THROW(parse_ptx(module(prototypes), kFile));
  expect_error(
      module(prototypes + ".extern .func one_more();\n"), 4 + 1024,
      over("the number of functions in the module", 1025, 1024, "split the module into several files"));
}

TEST(PtxLimits, SymbolCount) {
  std::string globals;
  for (int i = 0; i < 32768; ++i) globals += ".global .u32 g" + std::to_string(i) + ";\n";
  EXPECT_NO_THROW(parse_ptx(module(globals), kFile));
  expect_error(module(globals + ".global .u32 one_more;\n"), 4 + 32768,
               over("the number of symbols (variables and parameters) in the module", 32769, 32768,
                    "split the module into several files"));
}

TEST(PtxLimits, InstructionsPerFunction) {
  // 2^18 - 4 instructions load (room is kept for the four literal moves a vector operand may add, and the
  // implicit ret); one more fails.
  std::string body;
  const uint64_t fits = limits::kMaxInstructionsPerFunction - 4;
  body.reserve(fits * 20);
  for (uint64_t i = 0; i < fits; ++i) body += "add.s32 %r, %r, 1;\n";
  const auto start = std::chrono::steady_clock::now();
  const Module loaded = parse_ptx(kernel(".reg .b32 %r;\n", body), kFile);
  EXPECT_EQ(loaded.functions.at(0).code.size(), fits + 1);  // + the implicit ret
  EXPECT_LT(seconds_since(start), 10.0);
  expect_error(kernel(".reg .b32 %r;\n", body + "add.s32 %r, %r, 1;\n"), 7 + fits,
               over("the number of instructions in k", limits::kMaxInstructionsPerFunction + 1,
                    limits::kMaxInstructionsPerFunction, "split the function"));
}

TEST(PtxLimits, InstructionsPerModule) {
  // Four functions at the per-function limit (2^18 - 4 written, + the implicit ret) hold 2^20 - 12
  // instructions; the ninth instruction of a fifth function crosses 2^20 (with the room for literal moves).
  const uint64_t per_function = limits::kMaxInstructionsPerFunction - 4;
  std::string body;
  body.reserve(per_function * 20);
  for (uint64_t i = 0; i < per_function; ++i) body += "add.s32 %r, %r, 1;\n";
  std::string text;
  for (int f = 0; f < 4; ++f) text += ".func f" + std::to_string(f) + "()\n{\n.reg .b32 %r;\n" + body + "}\n";
  std::string fifth;
  for (int i = 0; i < 9; ++i) fifth += "add.s32 %r, %r, 1;\n";
  const uint64_t fifth_line = 4 + 4 * (per_function + 4);
  expect_error(module(text + ".func g()\n{\n.reg .b32 %r;\n" + fifth + "}\n"), fifth_line + 3 + 8,
               over("the number of instructions in the module", limits::kMaxLinkedInstructionsPerModule + 1,
                    limits::kMaxLinkedInstructionsPerModule, "split the module into several files"));
}

TEST(PtxLimits, LabelsPerFunction) {
  std::string at_limit;
  for (uint64_t i = 0; i < limits::kMaxLabelsPerFunction; ++i) {
    at_limit += 'L';  // appends: GCC 12 flags "L" + std::string with a false -Wrestrict
    at_limit += std::to_string(i);
    at_limit += ":\n";
  }
  EXPECT_EQ(parse_ptx(kernel("", at_limit), kFile).functions.at(0).labels.size(),
            limits::kMaxLabelsPerFunction);
  std::string body;
  for (uint64_t i = 0; i <= limits::kMaxLabelsPerFunction; ++i) {
    body += 'L';  // appends: GCC 12 flags "L" + std::string with a false -Wrestrict
    body += std::to_string(i);
    body += ":\n";
  }
  expect_error(kernel("", body), 6 + limits::kMaxLabelsPerFunction,
               over("the number of labels in k", limits::kMaxLabelsPerFunction + 1,
                    limits::kMaxLabelsPerFunction, "split the function"));
}

TEST(PtxLimits, BlockNesting) {
  const std::string open(64, '{'), close(64, '}');
  EXPECT_NO_THROW(parse_ptx(kernel("", open + "\nret;\n" + close + "\n"), kFile));
  expect_error(kernel("", open + "{\nret;\n}" + close + "\n"), 6,
               over("the nesting depth of '{' blocks", 65, 64, "flatten the nested blocks"));
}

TEST(PtxLimits, TokenAndStringLength) {
  const std::string name(limits::kMaxTokenChars, 'a');
  EXPECT_NO_THROW(parse_ptx(module(".global .u32 " + name + ";\n"), kFile));
  expect_error(
      module(".global .u32 " + name + "b;\n"), 4,
      over("the length of a token", limits::kMaxTokenChars + 1, limits::kMaxTokenChars, "shorten it"));
  const std::string path(limits::kMaxStringChars, 'p');
  EXPECT_NO_THROW(parse_ptx(module(".file 1 \"" + path + "\"\n"), kFile));
  expect_error(module(".file 1 \"" + path + "q\"\n"), 4,
               over("the length of a string literal", limits::kMaxStringChars + 1, limits::kMaxStringChars,
                    "shorten it"));
}

TEST(PtxLimits, FileAndLocIndicesAndLines) {
  expect_error(module(".file 65536 \"a.cu\"\n"), 4,
               over("the .file index", 65536, 65535, "number the source files from 1"));
  expect_error(kernel("", ".loc 70000 1 1\nret;\n"), 6,
               over("the .loc file index", 70000, 65535, "number the source files from 1"));
  expect_error(kernel("", ".loc 1 4294967296 1\nret;\n"), 6,
               over("the .loc line number", 4294967296ull, 4294967295ull, "source lines are 32-bit numbers"));
}

TEST(PtxLimits, FileSize) {
  const std::string header = module("");
  EXPECT_NO_THROW(parse_ptx(header + std::string(limits::kMaxFileBytes - header.size(), ' '), kFile));
  const std::string text = module(std::string(limits::kMaxFileBytes, ' '));
  expect_error(text, 1,
               over("the PTX text's size in bytes", text.size(), limits::kMaxFileBytes,
                    "split the module into several files"));
}

// Linking copies every .func a kernel calls into it: the registers and local frames add up.
std::string kernel_calling_func(const std::string& kernel_decls, const std::string& func_decls) {
  return module(".func f()\n{\n" + func_decls + "ret;\n}\n.visible .entry k()\n{\n" + kernel_decls +
                "call.uni f, ();\nret;\n}\n");
}

TEST(PtxLimits, LinkedRegistersOfAKernel) {
  expect_error(kernel_calling_func(".reg .b32 %r<40000>;\n", ".reg .b32 %r<25536>;\n"), 9,
               over("the registers of kernel k with its callees", 65536 + 1, 65536,
                    "call fewer or smaller device functions"));
  // 40,000 + 25,535 + the call-stack pointer: at the limit.
  const Module loaded =
      parse_ptx(kernel_calling_func(".reg .b32 %r<40000>;\n", ".reg .b32 %r<25535>;\n"), kFile);
  EXPECT_EQ(loaded.functions.at(1).regs.size(), 65536u);
}

TEST(PtxLimits, LinkedLocalFramesOfAKernel) {
  expect_error(kernel_calling_func(".local .align 16 .b8 a[300000];\n", ".local .align 16 .b8 b[300000];\n"),
               9,
               over("the .local bytes per thread of kernel k with the frames of its callees", 600000, 524288,
                    "call fewer or smaller device functions"));
}

TEST(PtxLimits, LinkedSymbolsOfAModule) {
  // 32,760 globals and f's 4 .local variables: the first kernel's copy of f's frame reaches 32,768 symbols,
  // the second one's crosses it.
  std::string text;
  for (int i = 0; i < 32760; ++i) text += ".global .u32 g" + std::to_string(i) + ";\n";
  text += ".func f()\n{\n.local .u32 a;\n.local .u32 b;\n.local .u32 c;\n.local .u32 d;\nret;\n}\n";
  const std::string first = ".visible .entry k1()\n{\ncall.uni f, ();\nret;\n}\n";
  EXPECT_EQ(parse_ptx(module(text + first), kFile).symbols.size(), 32768u);
  expect_error(module(text + first + ".visible .entry k2()\n{\ncall.uni f, ();\nret;\n}\n"),
               4 + 32760 + 8 + 5,
               over("the symbols of the module once callee frames are linked into its kernels", 32772, 32768,
                    "call fewer or smaller device functions"));
}

TEST(PtxLimits, LinkedInstructionsOfAModule) {
  // A .func of 2^17 instructions called by kernels k1..k7: each kernel gets its own copy, and the seventh
  // copy takes the module past 2^20 instructions (2^17 x 8 plus the kernels' own 2 x 7; about 230 MB are
  // copied before that).
  const uint64_t func_size = uint64_t{1} << 17;
  std::string text = ".func f()\n{\n.reg .b32 %r;\n";
  text.reserve(func_size * 20);
  for (uint64_t i = 0; i + 1 < func_size; ++i) text += "add.s32 %r, %r, 1;\n";
  text += "ret;\n}\n";
  for (int k = 1; k <= 7; ++k)
    text += ".visible .entry k" + std::to_string(k) + "()\n{\ncall.uni f, ();\nret;\n}\n";
  expect_error(module(text), func_size + 8 + 6 * 5,
               over("the instructions of the module once callees are linked into its kernels",
                    limits::kMaxLinkedInstructionsPerModule + 14, limits::kMaxLinkedInstructionsPerModule,
                    "call fewer or smaller device functions"));
}

}  // namespace
}  // namespace simtlm::ptx
