// Unit tests of the PTX decoder: opcode families, load-time errors and refusals, IR names (no SystemC).
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

// ---- Opcode families ---------------------------------------------------------------------------------

TEST(PtxDecode, Arithmetic) {
  Instr i = decode_one("add.sat.s32 %r1, %r2, %r3;");
  EXPECT_EQ(i.op, Op::add);
  EXPECT_EQ(i.type, Type::s32);
  EXPECT_TRUE(i.flags & kSat);
  EXPECT_EQ(i.ndst, 1);
  EXPECT_EQ(i.nsrc, 2);
  i = decode_one("sub.rz.ftz.f32 %f1, %f2, 0f40000000;");
  EXPECT_EQ(i.rnd, Rounding::rz);
  EXPECT_TRUE(i.flags & kFtz);
  EXPECT_EQ(i.src[1].imm, 0x40000000u);
  i = decode_one("mul.wide.u16 %r1, %rs1, %rs2;");
  EXPECT_EQ(i.sub, Sub::wide);
  EXPECT_EQ(i.type, Type::u16);
  i = decode_one("mul.hi.u32 %r1, %r2, %r3;");
  EXPECT_EQ(i.sub, Sub::hi);
  i = decode_one("mad.lo.s32 %r1, %r2, %r3, %r4;");
  EXPECT_EQ(i.op, Op::mad);
  EXPECT_EQ(i.sub, Sub::lo);
  EXPECT_EQ(i.nsrc, 3);
  i = decode_one("mad.wide.s32 %rd1, %r2, 4, %rd2;");
  EXPECT_EQ(i.sub, Sub::wide);
  i = decode_one("mul24.lo.u32 %r1, %r2, %r3;");
  EXPECT_EQ(i.op, Op::mul24);
  i = decode_one("mad24.hi.s32 %r1, %r2, %r3, %r4;");
  EXPECT_EQ(i.op, Op::mad24);
  EXPECT_EQ(i.sub, Sub::hi);
  i = decode_one("mul.rn.f64 %fd1, %fd2, %fd3;");
  EXPECT_EQ(i.sub, Sub::none);
  EXPECT_EQ(i.rnd, Rounding::rn);
  i = decode_one("div.approx.ftz.f32 %f1, %f2, %f3;");
  EXPECT_TRUE(i.flags & kApprox);
  EXPECT_TRUE(i.flags & kFtz);
  i = decode_one("div.full.f32 %f1, %f2, %f3;");
  EXPECT_TRUE(i.flags & kFull);
  i = decode_one("div.rn.f64 %fd1, %fd2, %fd3;");
  EXPECT_EQ(i.rnd, Rounding::rn);
  EXPECT_EQ(decode_one("div.s32 %r1, %r2, %r3;").op, Op::div);
  EXPECT_EQ(decode_one("rem.u64 %rd1, %rd2, %rd3;").op, Op::rem);
  EXPECT_EQ(decode_one("abs.ftz.f32 %f1, %f2;").nsrc, 1);
  EXPECT_EQ(decode_one("neg.s32 %r1, %r2;").op, Op::neg);
  EXPECT_EQ(decode_one("min.u32 %r1, %r2, %r3;").op, Op::min);
  EXPECT_EQ(decode_one("max.ftz.f32 %f1, %f2, %f3;").op, Op::max);
  i = decode_one("fma.rm.f64 %fd1, %fd2, %fd3, 0d3FF0000000000000;");
  EXPECT_EQ(i.op, Op::fma);
  EXPECT_EQ(i.rnd, Rounding::rm);
  EXPECT_EQ(i.nsrc, 3);
  EXPECT_EQ(decode_one("copysign.f32 %f1, %f2, %f3;").op, Op::copysign);
  EXPECT_EQ(decode_one("sad.u32 %r1, %r2, %r3, %r4;").nsrc, 3);
}

TEST(PtxDecode, LogicAndBits) {
  EXPECT_EQ(decode_one("and.pred %p1, %p2, %p3;").type, Type::pred);
  EXPECT_EQ(decode_one("or.b32 %r1, %r2, 1;").op, Op::or_);
  EXPECT_EQ(decode_one("xor.b64 %rd1, %rd2, %rd3;").op, Op::xor_);
  EXPECT_EQ(decode_one("not.b32 %r1, %r2;").op, Op::not_);
  EXPECT_EQ(decode_one("cnot.b32 %r1, %r2;").op, Op::cnot);
  EXPECT_EQ(decode_one("shl.b64 %rd1, %rd2, 3;").op, Op::shl);
  EXPECT_EQ(decode_one("shr.s32 %r1, %r2, %r3;").type, Type::s32);
  Instr i = decode_one("shf.l.wrap.b32 %r1, %r2, %r3, %r4;");
  EXPECT_EQ(i.sub, Sub::shf_l);
  EXPECT_TRUE(i.flags & kWrap);
  i = decode_one("shf.r.clamp.b32 %r1, %r2, %r3, 5;");
  EXPECT_EQ(i.sub, Sub::shf_r);
  EXPECT_TRUE(i.flags & kClamp);
  EXPECT_EQ(decode_one("popc.b64 %r1, %rd1;").op, Op::popc);
  EXPECT_EQ(decode_one("clz.b32 %r1, %r2;").op, Op::clz);
  EXPECT_TRUE(decode_one("bfind.shiftamt.u32 %r1, %r2;").flags & kShiftAmt);
  EXPECT_EQ(decode_one("brev.b32 %r1, %r2;").op, Op::brev);
  i = decode_one("bfe.u32 %r1, %r2, 8, 4;");
  EXPECT_EQ(i.nsrc, 3);
  EXPECT_EQ(i.src[2].imm, 4u);
  i = decode_one("bfi.b32 %r1, %r2, %r3, 8, 4;");
  EXPECT_EQ(i.nsrc, 4);
  EXPECT_EQ(i.src[3].imm, 4u);
  i = decode_one("prmt.b32 %r1, %r2, %r3, 0x3210;");
  EXPECT_EQ(i.sub, Sub::none);
  EXPECT_EQ(decode_one("prmt.b32.rc16 %r1, %r2, %r3, %r4;").sub, Sub::prmt_rc16);
  EXPECT_EQ(decode_one("prmt.b32.ecl %r1, %r2, %r3, %r4;").sub, Sub::prmt_ecl);
  i = decode_one("lop3.b32 %r1, %r2, %r3, %r4, 0xE8;");
  EXPECT_EQ(i.nsrc, 4);
  EXPECT_EQ(i.src[3].imm, 0xE8u);
}

TEST(PtxDecode, CompareAndSelect) {
  const char* cmps[] = {"eq", "ne",  "lt",  "le",  "gt",  "ge",  "lo",  "ls",  "hi",
                        "hs", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
  for (size_t c = 0; c < std::size(cmps); ++c) {
    bool is_float = c >= 10 || c < 6;
    std::string type = is_float ? "f32 %p1, %f1, %f2;" : "u32 %p1, %r1, %r2;";
    Instr i = decode_one(std::string("setp.") + cmps[c] + "." + type);
    EXPECT_EQ(static_cast<size_t>(i.cmp), c) << cmps[c];
  }
  Instr i = decode_one("setp.lt.or.ftz.f32 %p1|%p2, %f1, 0f00000000, !%p3;");
  EXPECT_EQ(i.bop, BoolOp::or_);
  EXPECT_TRUE(i.flags & kFtz);
  EXPECT_EQ(i.ndst, 2);
  EXPECT_EQ(i.nsrc, 3);
  EXPECT_TRUE(i.src[2].negate);
  EXPECT_EQ(decode_one("setp.ne.xor.s32 %p1, %r1, 0, %p2;").bop, BoolOp::xor_);
  i = decode_one("selp.b32 %r1, %r2, 7, %p1;");
  EXPECT_EQ(i.nsrc, 3);
  EXPECT_EQ(i.src[2].kind, OperandKind::reg);
  i = decode_one("slct.ftz.s32.f32 %r1, %r2, %r3, %f1;");
  EXPECT_EQ(i.type, Type::s32);
  EXPECT_EQ(i.type2, Type::f32);
  EXPECT_EQ(decode_one("testp.notanumber.f64 %p1, %fd1;").sub, Sub::testp_notanumber);
  EXPECT_EQ(decode_one("testp.subnormal.f32 %p1, %f1;").sub, Sub::testp_subnormal);
}

TEST(PtxDecode, Conversions) {
  Instr i = decode_one("cvt.rn.f32.s32 %f1, %r1;");
  EXPECT_EQ(i.type, Type::f32);
  EXPECT_EQ(i.type2, Type::s32);
  EXPECT_EQ(i.rnd, Rounding::rn);
  const char* roundings[] = {"rn", "rz", "rm", "rp"};
  for (const char* r : roundings)
    EXPECT_NE(decode_one(std::string("cvt.") + r + ".f32.f64 %f1, %fd1;").rnd, Rounding::none);
  const char* int_roundings[] = {"rni", "rzi", "rmi", "rpi"};
  for (size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(decode_one(std::string("cvt.") + int_roundings[k] + ".s32.f32 %r1, %f1;").rnd,
              static_cast<Rounding>(static_cast<int>(Rounding::rni) + k));
  }
  i = decode_one("cvt.rzi.ftz.sat.u8.f32 %rs1, %f1;");
  EXPECT_TRUE(i.flags & kFtz);
  EXPECT_TRUE(i.flags & kSat);
  EXPECT_EQ(decode_one("cvt.f32.f16 %f1, %rs1;").type2, Type::f16);
  EXPECT_EQ(decode_one("cvt.rn.bf16.f32 %rs1, %f1;").type, Type::bf16);
  EXPECT_EQ(decode_one("cvt.u64.u32 %rd1, %r1;").type2, Type::u32);
  EXPECT_THAT(parse("cvt.rn.f16x2.f32 %r1, %f1, %f2;").functions[0].unsupported,
              ::testing::HasSubstr("packed f16x2/bf16x2 types are not supported"));
  i = decode_one("cvta.to.global.u64 %rd1, %rd2;");
  EXPECT_EQ(i.sub, Sub::to_space);
  EXPECT_EQ(i.space, Space::global);
  i = decode_one("cvta.shared.u32 %r1, %r2;");
  EXPECT_EQ(i.sub, Sub::from_space);
  EXPECT_EQ(i.space, Space::shared);
  EXPECT_EQ(decode_one("cvta.local.u64 %rd1, %rd2;").space, Space::local);
  EXPECT_EQ(decode_one("cvta.const.u64 %rd1, gbuf;").src[0].kind, OperandKind::sym_addr);
  EXPECT_EQ(decode_one("cvta.to.param.u64 %rd1, %rd2;").space, Space::param);
  // Half-precision immediates are converted to the operand's type.
  EXPECT_EQ(decode_one("mov.f16 %rs1, 0f3F800000;").src[0].imm, 0x3C00u);
}

TEST(PtxDecode, Memory) {
  Instr i = decode_one("ld.u32 %r1, [%rd1];");
  EXPECT_EQ(i.space, Space::generic);
  i = decode_one("ld.global.nc.L1::no_allocate.v2.f32 {%f1, %f2}, [%rd1+8];");
  EXPECT_EQ(i.space, Space::global);
  EXPECT_TRUE(i.flags & kNc);
  EXPECT_EQ(i.vec, 2);
  EXPECT_EQ(i.dst[0].count, 2);
  i = decode_one("ld.volatile.shared.v4.u32 {%r1, %r2, _, %r4}, [%r5];");
  EXPECT_TRUE(i.flags & kVolatile);
  EXPECT_EQ(i.vec, 4);
  EXPECT_EQ(decode_one("ld.relaxed.gpu.global.u32 %r1, [%rd1];").space, Space::global);
  EXPECT_EQ(decode_one("ld.acquire.sys.u32 %r1, [%rd1];").space, Space::generic);
  EXPECT_EQ(decode_one("ld.global.cg.u32 %r1, [%rd1];").space, Space::global);
  EXPECT_EQ(decode_one("ld.local.u64 %rd1, [%rd2];").space, Space::local);
  // Loads that must see other SMs' writes (the timing model's L1 passes them down): .cg/.cv, and .acquire or
  // .relaxed at .gpu/.sys scope; not .cta scope, not plain, .ca or .nc loads.
  for (const char* coherent :
       {"ld.relaxed.gpu.global.u32 %r1, [%rd1];", "ld.acquire.sys.u32 %r1, [%rd1];",
        "ld.global.cg.u32 %r1, [%rd1];", "ld.global.cv.u32 %r1, [%rd1];", "ld.acquire.gpu.u32 %r1, [%rd1];"})
    EXPECT_TRUE(decode_one(coherent).flags & kCoherent) << coherent;
  for (const char* cached : {"ld.acquire.cta.u32 %r1, [%rd1];", "ld.relaxed.cta.global.u32 %r1, [%rd1];",
                             "ld.global.u32 %r1, [%rd1];", "ld.global.ca.u32 %r1, [%rd1];",
                             "ld.global.nc.u32 %r1, [%rd1];", "st.global.cg.u32 [%rd1], %r1;"})
    EXPECT_FALSE(decode_one(cached).flags & kCoherent) << cached;
  EXPECT_EQ(decode_one("ld.const.u32 %r1, [gbuf];").space, Space::constant);
  i = decode_one("st.global.cs.v2.u32 [%rd1], {%r1, %r2};");
  EXPECT_EQ(i.op, Op::st);
  EXPECT_EQ(i.src[0].kind, OperandKind::mem);
  EXPECT_EQ(i.src[1].kind, OperandKind::vec);
  EXPECT_EQ(decode_one("st.release.cta.shared.u32 [%r1], 5;").src[1].imm, 5u);
  i = decode_one("atom.global.cas.b64 %rd1, [%rd2], %rd3, 4;");
  EXPECT_EQ(i.sub, Sub::a_cas);
  EXPECT_EQ(i.nsrc, 3);
  const char* ops[] = {"add", "min", "max", "inc", "dec", "exch", "and", "or", "xor"};
  for (const char* op : ops) {
    i = decode_one(std::string("atom.shared.") + op + ".u32 %r1, [%r2], %r3;");
    EXPECT_EQ(i.op, Op::atom);
    EXPECT_EQ(i.space, Space::shared);
    EXPECT_NE(i.sub, Sub::none);
  }
  i = decode_one("atom.add.f32 %f1, [%rd1], 0f3F800000;");
  EXPECT_EQ(i.space, Space::generic);
  EXPECT_EQ(i.src[1].imm, 0x3F800000u);
  i = decode_one("red.relaxed.gpu.global.add.u64 [%rd1], %rd2;");
  EXPECT_EQ(i.op, Op::red);
  EXPECT_EQ(i.ndst, 0);
  EXPECT_EQ(i.nsrc, 2);
}

TEST(PtxDecode, ControlAndWarp) {
  Module module = parse("$L0:\nbra.uni $L0;\n@%p1 bra $L1;\n$L1:\nret;");
  EXPECT_TRUE(module.functions[0].code[0].flags & kUni);
  EXPECT_EQ(module.functions[0].code[0].target, 0u);
  EXPECT_EQ(module.functions[0].code[1].target, 2u);
  Module tail = parse("@%p1 bra $L_end;\nadd.s32 %r1, %r1, 1;\n$L_end:");
  ASSERT_EQ(tail.functions[0].code.size(), 3u);  // an implicit ret keeps the branch target valid
  EXPECT_EQ(tail.functions[0].code[2].op, Op::ret);
  EXPECT_EQ(tail.functions[0].code[0].target, 2u);
  EXPECT_EQ(decode_one("exit;").op, Op::exit);
  EXPECT_EQ(decode_one("trap;").op, Op::trap);
  Instr i = decode_one("bar.sync 0;");
  EXPECT_EQ(i.sub, Sub::bar_sync);
  EXPECT_EQ(i.nsrc, 1);
  i = decode_one("barrier.sync.aligned 1, %r1;");
  EXPECT_EQ(i.sub, Sub::bar_sync);
  EXPECT_EQ(i.nsrc, 2);
  EXPECT_TRUE(i.flags & kAligned);
  EXPECT_EQ(decode_one("bar.cta.sync 0;").sub, Sub::bar_sync);
  EXPECT_EQ(decode_one("barrier.sync %r1;").sub, Sub::bar_sync);
  EXPECT_EQ(decode_one("bar.arrive 1, 64;").sub, Sub::bar_arrive);
  i = decode_one("bar.red.and.pred %p1, 0, !%p2;");
  EXPECT_EQ(i.sub, Sub::bar_red_and);
  EXPECT_EQ(i.ndst, 1);
  EXPECT_EQ(i.nsrc, 3);
  EXPECT_TRUE(i.src[2].negate);
  EXPECT_EQ(decode_one("bar.red.or.pred %p1, 0, 64, %p2;").src[1].imm, 64u);
  EXPECT_EQ(decode_one("bar.red.popc.u32 %r1, 0, %p2;").sub, Sub::bar_red_popc);
  i = decode_one("bar.warp.sync -1;");
  EXPECT_EQ(i.op, Op::bar_warp);
  EXPECT_EQ(i.src[0].imm, ~0ull);
  i = decode_one("vote.sync.ballot.b32 %r1, %p1, -1;");
  EXPECT_EQ(i.sub, Sub::v_ballot);
  EXPECT_EQ(i.nsrc, 2);
  EXPECT_EQ(decode_one("vote.sync.any.pred %p1, !%p2, %r1;").src[0].negate, true);
  EXPECT_EQ(decode_one("vote.sync.all.pred %p1, %p2, -1;").sub, Sub::v_all);
  EXPECT_EQ(decode_one("vote.sync.uni.pred %p1, %p2, -1;").sub, Sub::v_uni);
  EXPECT_EQ(decode_one("vote.any.pred %p1, %p2;").src[1].imm, 0xffffffffu);
  i = decode_one("shfl.sync.bfly.b32 %r1|%p1, %r2, 4, 31, -1;");
  EXPECT_EQ(i.sub, Sub::s_bfly);
  EXPECT_EQ(i.ndst, 2);
  EXPECT_EQ(i.nsrc, 4);
  EXPECT_EQ(decode_one("shfl.sync.idx.b32 %r1, %r2, 0, 31, %r3;").sub, Sub::s_idx);
  EXPECT_EQ(decode_one("shfl.sync.up.b32 %r1, %r2, 1, 0, -1;").sub, Sub::s_up);
  EXPECT_EQ(decode_one("shfl.idx.b32 %r1, %r2, 1, 31;").src[3].imm, 0xffffffffu);
  EXPECT_EQ(decode_one("activemask.b32 %r1;").op, Op::activemask);
  EXPECT_EQ(decode_one("membar.gl;").op, Op::membar);
  EXPECT_EQ(decode_one("membar.cta;").op, Op::membar);
  EXPECT_EQ(decode_one("fence.sc.sys;").op, Op::membar);
}

TEST(PtxDecode, SpecialFunctions) {
  Instr i = decode_one("sqrt.rn.f32 %f1, %f2;");
  EXPECT_EQ(i.op, Op::sqrt);
  EXPECT_EQ(i.rnd, Rounding::rn);
  EXPECT_TRUE(decode_one("rsqrt.approx.ftz.f64 %fd1, %fd2;").flags & kApprox);
  EXPECT_EQ(decode_one("rcp.rn.f64 %fd1, %fd2;").op, Op::rcp);
  EXPECT_EQ(decode_one("ex2.approx.ftz.f32 %f1, %f2;").op, Op::ex2);
  EXPECT_EQ(decode_one("lg2.approx.f32 %f1, %f2;").op, Op::lg2);
  EXPECT_EQ(decode_one("sin.approx.f32 %f1, %f2;").op, Op::sin);
  EXPECT_EQ(decode_one("cos.approx.ftz.f32 %f1, %f2;").op, Op::cos);
  EXPECT_EQ(decode_one("tanh.approx.f32 %f1, %f2;").op, Op::tanh);
}

// ---- Errors ------------------------------------------------------------------------------------------

TEST(PtxErrors, MalformedInputReportsLine) {
  expect_body_error("add.s32 %r1, %r2, %r3;\n.bogus 3;", 1, "unknown or unsupported directive");
  expect_body_error("add.s32 %r1, %r2, %r3\nret;", 0, "missing ';'");
  expect_body_error("ret;\nadd.s32 %r1, [%r2], %r3;", 1, "bad operand");
  expect_body_error("ret;\nadd.s32 %r1, %r2, %r99;", 1, "undeclared register %r99");
  expect_body_error("ret;\nret;\nbra $L__nowhere;", 2, "undefined label $L__nowhere");
  expect_body_error("ld.global.u32 %r1, [nosuch];", 0, "undefined symbol nosuch");
  expect_body_error("mov.u64 %rd1, nosuch;\nret;", 0, "undefined symbol");
  expect_body_error("ret;\nadd.s32 %r1, %r2;", 1, "wrong operand count");
  expect_body_error("ret;\n@%r1 ret;", 1, "not a predicate");
  expect_body_error("ret;\nmov.u32 %r1, #;", 1, "unexpected character");
  expect_body_error("ret;\nld.global.v2.u32 %r1, [%rd1];", 1, "vector destination");
  expect_body_error(".reg .b32 %r1;", 0, "redeclaration");
  expect_error(".version 9.0\n.target sm_75\n.entry k()\n{\nret;\n{\nret;\n}\n", 4, "unterminated block");
  expect_error(".version 9.0\n.foo\n", 2, "unknown or unsupported directive");
  expect_error(".version 9.0\n/* never closed\n", 2, "unterminated /* comment");
  expect_error(".version 9.0\n.section .debug_str {\n.b8 1\n", 2, "unterminated .section");
  expect_error(".version 9.0\n.global .u32 x = {1, 2};\n", 2, "too many initializers");
}

// Unsupported but well-formed instructions load and refuse their kernel when it is selected (see
// test_ptx_front_end.cpp for modules with several kernels); malformed ones stay load-time errors.
TEST(PtxErrors, UnsupportedInstructionsRefuseTheKernel) {
  expect_body_refused("ret;\nadd.cc.u32 %r1, %r2, %r3;", 1, "carry-chain");
  expect_body_refused("ret;\naddc.u32 %r1, %r2, %r3;", 1, "unsupported instruction 'addc.u32'");
  expect_body_refused("ret;\nmadc.hi.u32 %r1, %r2, %r3, %r4;", 1, "unsupported instruction");
  expect_body_refused("ret;\ntld4.r.2d.v4.f32.f32 {%f1,%f2,%f3,%f0}, [%rd1, {%f1, %f2}];", 1,
                      "unsupported instruction 'tld4.r.2d");
  expect_body_refused("ret;\nvabsdiff4.u32.u32.u32 %r1, %r2, %r3, %r4;", 1, "unsupported instruction");
  expect_body_refused("ret;\nadd.e4m3.u32 %r1, %r2, %r3;", 1, "unsupported modifier .e4m3");
  expect_body_refused("ret;\nld.global.b128 %rd1, [%rd1];", 1, ".b128 is not supported");
  expect_body_refused("ret;\natom.local.add.u32 %r1, [%rd1], 1;", 1, "atomics on .local are not supported");
  expect_body_error("ret;\nmul.u32 %r1, %r2, %r3;", 1, "needs .lo, .hi or .wide");
  expect_body_refused("ret;\nld.shared::cluster.u32 %r1, [%r2];", 1, "unsupported modifier");
  // The first unsupported construct is the one reported; the error text carries the offending instruction.
  try {
    const Module module = parse(" ret;\n  set.nan.f16.f16 %rs1, %rs2, %rs3;\n  addc.u32 %r1, %r2, %r3;");
    require_supported(module, module.functions.at(0));
    ADD_FAILURE();
  } catch (const PtxError& error) {
    EXPECT_NE(std::string(error.what()).find("\n    set.nan.f16.f16 %rs1, %rs2, %rs3;"), std::string::npos)
        << error.what();
    EXPECT_EQ(error.file(), "test.ptx");
    EXPECT_EQ(error.line(), kBodyLine + 1);
  }
  std::string call_other =
      ".version 9.0\n.target sm_75\n.address_size 64\n.func helper(.param .b32 x) { ret; }\n"
      ".entry k() {\n{ .param .b32 param0;\ncall.uni helper, (param0, param0);\n}\nret;\n}\n";
  // A call that cannot be linked refuses the kernel that reaches it (models/ptx/call_link.hpp).
  const Module wrong_arguments = parse_ptx(call_other, "test.ptx");
  EXPECT_EQ(wrong_arguments.functions.at(1).unsupported, "call to helper passes 2 arguments; it declares 1");
  EXPECT_EQ(wrong_arguments.functions.at(1).unsupported_line, 7u);
  expect_error(".version 9.0\n.target sm_75\n.entry k() {\n{ .param .b32 p;\ncall.uni nothere, (p);\n}\n}\n",
               5, "undeclared function");
}

TEST(PtxErrors, IndirectCallsAndUnsupportedDeclarations) {
  // An indirect call naming no .callprototype (test_indirect_calls.cpp has the calls the model makes).
  expect_body_refused("ret;\n{ .param .b32 p;\ncall.uni (p), %rd1, (p), proto;\n}", 2,
                      "indirect call naming proto, which is no .callprototype of the function");
  // Issue 32: these two failed the whole module; they refuse only the kernels that use them now (more in
  // test_module_refusals.cpp).
  expect_body_refused("ret;\nmov.u32 %r1, %dynamic_smem_size;", 1,
                      "special register %dynamic_smem_size is not supported");
  EXPECT_EQ(parse_ptx(".version 9.0\n.global .u64 p = generic(gbuf);\n", "t.ptx").unsupported_symbols.size(),
            1u);
  expect_error(".version 9.0\n.global .texref tex;\n", 2, "unsupported type '.texref'");
  expect_error(".version 9.0\n.entry k() { .param .b32 x; ret; }\n", 2, "call block");
}

TEST(PtxErrors, MissingFile) {
  EXPECT_THROW(load_ptx_file("/nonexistent/file.ptx"), PtxError);
}

TEST(PtxIr, NamesAndTypeTraits) {
  EXPECT_EQ(type_bits(Type::pred), 1u);
  EXPECT_EQ(type_bits(Type::f16x2), 32u);
  EXPECT_EQ(type_bits(Type::b128), 128u);
  EXPECT_TRUE(type_is_signed(Type::s8));
  EXPECT_FALSE(type_is_signed(Type::u64));
  EXPECT_TRUE(type_is_float(Type::bf16));
  EXPECT_FALSE(type_is_float(Type::b32));
  EXPECT_STREQ(type_name(Type::bf16x2), "bf16x2");
  EXPECT_STREQ(space_name(Space::constant), "const");
  EXPECT_STREQ(op_name(Op::tanh), "tanh");
  EXPECT_STREQ(op_name(Op::and_), "and");
}

}  // namespace
}  // namespace simtlm::ptx
