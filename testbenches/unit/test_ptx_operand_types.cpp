// Register operands must fit the instruction's types (models/ptx/operand_types.hpp). Every verdict below was
// checked against ptxas (CUDA 13, -arch=sm_75): the rejected forms are its "Arguments mismatch" errors, the
// accepted ones are forms nvcc emits.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "models/ptx/parser.hpp"

namespace simtlm::ptx {
namespace {

constexpr const char* kFile = "types.ptx";
constexpr uint32_t kBodyLine = 9;

// One kernel with registers of every kind; `body` starts at line 9.
std::string kernel(const std::string& body) {
  return ".version 9.0\n.target sm_75\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
         ".reg .pred %p<4>;\n.reg .b16 %rs<4>;\n"
         ".reg .b32 %r<10>; .reg .f32 %f<4>; .reg .b64 %rd<4>; .reg .f64 %fd<4>; .reg .u32 %u<4>;\n" +
         body + "\nret;\n}\n";
}

// The first line of the error loading `body`, without "types.ptx:9: ".
std::string error_of(const std::string& body) {
  try {
    parse_ptx(kernel(body), kFile);
  } catch (const PtxError& error) {
    EXPECT_EQ(error.line(), kBodyLine);
    const std::string what = error.what();
    const std::string prefix = std::string(kFile) + ":" + std::to_string(kBodyLine) + ": ";
    EXPECT_EQ(what.substr(0, prefix.size()), prefix);
    EXPECT_EQ(what.substr(what.find('\n') + 1), "    " + body) << "the message quotes the instruction";
    return what.substr(prefix.size(), what.find('\n') - prefix.size());
  }
  return "loaded";
}

TEST(PtxOperandTypes, WiderRegisterInAnIntegerOpIsAnError) {
  EXPECT_EQ(error_of("add.u32 %r3, %rd1, %f1;"),
            "operand type mismatch in 'add.u32': source %rd1 is a .b64 register; it must be an integer or "
            "bit-size register 32 bits wide");
  EXPECT_EQ(error_of("add.u32 %r3, %rd1, %r1;"),
            "operand type mismatch in 'add.u32': source %rd1 is a .b64 register; it must be an integer or "
            "bit-size register 32 bits wide");
  EXPECT_EQ(
      error_of("mul.wide.u32 %r1, %r1, %r2;"),
      "operand type mismatch in 'mul.wide.u32': destination %r1 is a .b32 register; it must be an integer "
      "or bit-size register 64 bits wide");
  EXPECT_EQ(error_of("shl.b64 %rd1, %rd2, %rd3;"),
            "operand type mismatch in 'shl.b64': source %rd3 is a .b64 register; it must be an integer or "
            "bit-size register 32 bits wide");
}

TEST(PtxOperandTypes, FloatRegisterInAnIntegerOpIsAnError) {
  EXPECT_EQ(
      error_of("add.u32 %r3, %r1, %f1;"),
      "operand type mismatch in 'add.u32': source %f1 is a .f32 register; it must be an integer or bit-size "
      "register 32 bits wide");
  EXPECT_EQ(
      error_of("atom.global.add.u32 %r1, [%rd1], %f2;"),
      "operand type mismatch in 'atom.global.add.u32': source %f2 is a .f32 register; it must be an integer "
      "or bit-size register 32 bits wide");
  EXPECT_EQ(
      error_of("mov.u32 %r1, %f1;"),
      "operand type mismatch in 'mov.u32': source %f1 is a .f32 register; it must be an integer or bit-size "
      "register 32 bits wide");
}

TEST(PtxOperandTypes, IntegerRegisterInAFloatOpIsAnError) {
  EXPECT_EQ(error_of("add.f32 %f1, %f2, %u1;"),
            "operand type mismatch in 'add.f32': source %u1 is a .u32 register; it must be a .f32 or .b32 "
            "register");
  EXPECT_EQ(
      error_of("ld.global.f32 %fd1, [%rd1];"),
      "operand type mismatch in 'ld.global.f32': destination %fd1 is a .f64 register; it must be a .f32 or "
      ".b32 register");
}

TEST(PtxOperandTypes, PredicateAsDataAndDataAsPredicateAreErrors) {
  EXPECT_EQ(
      error_of("add.u32 %r1, %p1, %r2;"),
      "operand type mismatch in 'add.u32': source %p1 is a .pred register; it must be an integer or bit-size "
      "register 32 bits wide");
  EXPECT_EQ(error_of("setp.lt.u32 %r1, %r1, %r2;"),
            "operand type mismatch in 'setp.lt.u32': destination %r1 is a .b32 register; it must be a .pred "
            "register");
  EXPECT_EQ(
      error_of("selp.b32 %r1, %r2, %r3, %r4;"),
      "operand type mismatch in 'selp.b32': source %r4 is a .b32 register; it must be a .pred register");
  EXPECT_EQ(
      error_of("not.pred %p1, %r2;"),
      "operand type mismatch in 'not.pred': source %r2 is a .b32 register; it must be a .pred register");
}

TEST(PtxOperandTypes, AddressesAndLoadsStoresConversions) {
  EXPECT_EQ(
      error_of("ld.global.u32 %r1, [%f1];"),
      "operand type mismatch in 'ld.global.u32': address %f1 is a .f32 register; it must be a 32- or 64-bit "
      "integer or bit-size register");
  EXPECT_EQ(
      error_of("ld.global.u8 %f1, [%rd1];"),
      "operand type mismatch in 'ld.global.u8': destination %f1 is a .f32 register; it must be an integer or "
      "bit-size register at least 8 bits wide");
  EXPECT_EQ(
      error_of("st.global.u16 [%rd1], %f1;"),
      "operand type mismatch in 'st.global.u16': source %f1 is a .f32 register; it must be an integer or "
      "bit-size register at least 16 bits wide");
  EXPECT_EQ(
      error_of("cvt.u64.u32 %r1, %r2;"),
      "operand type mismatch in 'cvt.u64.u32': destination %r1 is a .b32 register; it must be an integer or "
      "bit-size register at least 64 bits wide");
  EXPECT_EQ(
      error_of("cvta.to.global.u64 %rd1, %r1;"),
      "operand type mismatch in 'cvta.to.global.u64': source %r1 is a .b32 register; it must be an integer "
      "or bit-size register 64 bits wide");
  EXPECT_EQ(
      error_of("mad.wide.u32 %rd1, %r1, %r2, %r3;"),
      "operand type mismatch in 'mad.wide.u32': source %r3 is a .b32 register; it must be an integer or "
      "bit-size register 64 bits wide");
}

TEST(PtxOperandTypes, VectorPacksNeedElementsOfTheRightWidth) {
  EXPECT_EQ(error_of("mov.b64 %rd1, {%rs1, %rs2};"),
            "operand type mismatch in 'mov.b64': source %rs1 is a .b16 register; it must be a register 32 "
            "bits wide "
            "(not .pred)");
  EXPECT_EQ(
      error_of("popc.b64 %rd1, %rd1;"),
      "operand type mismatch in 'popc.b64': destination %rd1 is a .b64 register; it must be an integer or "
      "bit-size register 32 bits wide");
}

// Forms nvcc emits and ptxas accepts: narrow data in wide registers for ld/st/cvt, bit-size registers for any
// type of their width, wide products, packs, predicates where predicates belong.
TEST(PtxOperandTypes, RelaxedFormsLoad) {
  const std::vector<std::string> accepted = {"add.f32 %f1, %f2, %r1;",
                                             "ld.global.u8 %r1, [%rd1];",
                                             "ld.global.f32 %r1, [%rd1];",
                                             "ld.shared.u32 %r1, [%r2];",
                                             "st.global.u8 [%rd1], %r1;",
                                             "mul.wide.u16 %r1, %rs1, %rs2;",
                                             "mul.wide.u32 %rd1, %r1, %r2;",
                                             "mad.wide.u32 %rd1, %r1, %r2, %rd2;",
                                             "cvt.u32.u16 %r1, %r2;",
                                             "cvt.u32.u16 %r1, %rs1;",
                                             "cvt.f32.f16 %f1, %rs1;",
                                             "cvt.f32.f16 %f1, %r1;",
                                             "cvt.rn.f32.u32 %f1, %rd1;",
                                             "cvt.u8.u32 %rs1, %r1;",
                                             "cvt.u32.u64 %r1, %rd1;",
                                             "setp.lt.u32 %p1, %r1, %r2;",
                                             "selp.b32 %r1, %r2, %r3, %p1;",
                                             "mov.b64 %rd1, {%r1, %r2};",
                                             "mov.b32 {%rs1, %rs2}, %r1;",
                                             "mov.b32 %f1, %r1;",
                                             "mov.b32 %r1, {0, %rs2};",
                                             "and.b32 %r1, %f1, %r2;",
                                             "popc.b64 %r1, %rd1;",
                                             "shl.b64 %rd1, %rd2, %r1;",
                                             "atom.global.add.f32 %f1, [%rd1], %f2;",
                                             "ld.param.u64 %rd1, [p];",
                                             "ld.global.v2.u8 {%r1, %r2}, [%rd1];",
                                             "ld.global.v2.f32 {%f1, %r2}, [%rd1];",
                                             "shfl.sync.bfly.b32 %f1|%p1, %f2, 1, 31, -1;",
                                             "vote.sync.ballot.b32 %r1, %p1, -1;",
                                             "not.pred %p1, %p2;",
                                             "mov.u32 %r1, %tid.x;",
                                             "add.u32 %u1, %r1, %u2;",
                                             "setp.ne.and.u32 %p1, %r2, %r3, %p0;"};
  for (const std::string& body : accepted) EXPECT_EQ(error_of(body), "loaded") << body;
}

// The acid test: every PTX file committed to the repository still loads with the type rules on. Files in
// `hostile` directories are made to cross a limit on purpose and are tested where they are used.
TEST(PtxOperandTypes, EveryCommittedPtxFileLoads) {
  namespace fs = std::filesystem;
  size_t files = 0;
  for (const char* dir : {"workloads", "testbenches"}) {
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(SIMTLM_SOURCE_DIR) / dir)) {
      if (entry.path().extension() != ".ptx" || entry.path().parent_path().filename() == "hostile") continue;
      ++files;
      EXPECT_NO_THROW(load_ptx_file(entry.path().string())) << entry.path();
    }
  }
  EXPECT_GE(files, 44u);
}

}  // namespace
}  // namespace simtlm::ptx
