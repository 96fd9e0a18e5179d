// Control steps, warp-level operations, special registers, moves, printf and assert.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "testbenches/unit/ir_builder.hpp"

namespace simtlm::ptx {
namespace {

using namespace build;
using ::testing::HasSubstr;

TEST(ExecCtrl, InitWarpThreadIds) {
  Harness h(8, Dim3{4, 4, 4});  // 64 threads: warp 1 holds linear ids 32..63
  h.executor->init_warp(h.warp, h.cta, 1);
  EXPECT_EQ(h.warp.valid, 0xffffffffu);
  EXPECT_EQ(h.warp.tid[0].x, 0u);
  EXPECT_EQ(h.warp.tid[0].y, 0u);
  EXPECT_EQ(h.warp.tid[0].z, 2u);
  EXPECT_EQ(h.warp.tid[6].x, 2u);
  EXPECT_EQ(h.warp.tid[6].y, 1u);
  EXPECT_EQ(h.warp.regs.size(), 8u * 32);
  EXPECT_EQ(h.warp.local.size(), 64u * 32);
  Harness partial(8, Dim3{40, 1, 1});
  partial.executor->init_warp(partial.warp, partial.cta, 1);
  EXPECT_EQ(partial.warp.valid, 0xffu);
  EXPECT_EQ(partial.warp.tid[7].x, 39u);
}

TEST(ExecCtrl, BranchExitBarrierSteps) {
  Harness h;
  for (unsigned l = 0; l < 32; ++l) h.reg(1, l) = l < 4;
  Instr bra = guard(I(Op::bra, Type::none, {}, {}), 1);
  bra.target = 7;
  WarpStep s = h.run(bra, 0xff);
  EXPECT_EQ(s.kind, StepKind::branch);
  EXPECT_EQ(s.taken, 0xfu);
  EXPECT_EQ(s.target, 7u);
  bra.guard = kNoReg;
  EXPECT_EQ(h.run(bra, 0xff).taken, 0xffu);
  EXPECT_EQ(h.run(I(Op::exit, Type::none, {}, {})).kind, StepKind::exit);
  EXPECT_EQ(h.run(guard(I(Op::ret, Type::none, {}, {}), 1), 0xff).active, 0xfu);
  s = h.run(with(I(Op::bar, Type::none, {}, {Imm(1), Imm(64)}), Sub::bar_sync));
  EXPECT_EQ(s.kind, StepKind::barrier);
  EXPECT_EQ(s.barrier_id, 1u);
  EXPECT_EQ(s.barrier_count, 64u);
  EXPECT_FALSE(s.barrier_all_threads);
  s = h.run(with(I(Op::bar, Type::none, {}, {Imm(0)}), Sub::bar_sync));
  EXPECT_TRUE(s.barrier_all_threads);
  EXPECT_EQ(h.run(I(Op::membar, Type::none, {}, {})).kind, StepKind::normal);
  Instr trap = I(Op::trap, Type::none, {}, {});
  try {
    h.run(trap, 0x4);
    FAIL();
  } catch (const KernelError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("trap at kernel test_kernel, CTA (2,3,4), thread (2,0,0)"));
  }
}

TEST(ExecCtrl, SpecialRegisters) {
  Harness h;
  h.launch.grid = Dim3{5, 6, 7};
  h.launch.nsm = 4;
  h.cta.smid = 3;
  h.warp.clock = 0x100000002ull;
  auto sreg = [&](SpecialReg r, unsigned lane) {
    h.run(I(Op::mov, Type::u64, {R(0)}, {Sreg(r)}));
    return h.reg(0, lane);
  };
  EXPECT_EQ(sreg(SpecialReg::tid_x, 9), 9u);
  EXPECT_EQ(sreg(SpecialReg::ntid_x, 0), 32u);
  EXPECT_EQ(sreg(SpecialReg::ctaid_y, 0), 3u);
  EXPECT_EQ(sreg(SpecialReg::nctaid_z, 0), 7u);
  EXPECT_EQ(sreg(SpecialReg::laneid, 17), 17u);
  EXPECT_EQ(sreg(SpecialReg::nwarpid, 0), 64u);
  EXPECT_EQ(sreg(SpecialReg::smid, 0), 3u);
  EXPECT_EQ(sreg(SpecialReg::nsmid, 0), 4u);
  EXPECT_EQ(sreg(SpecialReg::clock, 0), 2u);
  EXPECT_EQ(sreg(SpecialReg::clock64, 0), 0x100000002ull);
  EXPECT_EQ(sreg(SpecialReg::lanemask_lt, 4), 0xfu);
  EXPECT_EQ(sreg(SpecialReg::lanemask_le, 31), 0xffffffffu);
  EXPECT_EQ(sreg(SpecialReg::lanemask_gt, 31), 0u);
  EXPECT_EQ(sreg(SpecialReg::lanemask_ge, 1), 0xfffffffeu);
  EXPECT_EQ(sreg(SpecialReg::lanemask_eq, 3), 8u);
}

TEST(ExecCtrl, MovPackUnpack) {
  Harness h;
  h.reg(1) = 0x11111111;
  h.reg(2) = 0x22222222;
  h.run(I(Op::mov, Type::b64, {R(0)}, {Vec({1, 2})}), 1);
  EXPECT_EQ(h.reg(0), 0x2222222211111111ull);
  h.run(I(Op::mov, Type::b64, {Vec({3, 4})}, {Imm(0xaaaaaaaabbbbbbbbull)}), 1);
  EXPECT_EQ(h.reg(3), 0xbbbbbbbbu);
  EXPECT_EQ(h.reg(4), 0xaaaaaaaau);
  h.run(I(Op::mov, Type::b32, {Vec({5, kNoReg})}, {Imm(0x12345678)}), 1);
  EXPECT_EQ(h.reg(5), 0x5678u);
  h.run(I(Op::mov, Type::u32, {R(6)}, {Imm(0x1234567890ull)}), 1);
  EXPECT_EQ(h.reg(6), 0x34567890u);
}

TEST(ExecCtrl, VoteAndActivemask) {
  Harness h;
  for (unsigned l = 0; l < 32; ++l) h.reg(1, l) = l % 3 == 0;
  h.run(with(I(Op::vote, Type::b32, {R(0)}, {R(1), Imm(~0u)}), Sub::v_ballot), 0xff);
  EXPECT_EQ(h.reg(0, 2), 0x49u);  // lanes 0, 3, 6
  h.run(with(I(Op::vote, Type::b32, {R(0)}, {NotR(1), Imm(~0u)}), Sub::v_ballot), 0xff);
  EXPECT_EQ(h.reg(0, 2), 0xb6u);
  h.run(with(I(Op::vote, Type::pred, {R(0)}, {R(1), Imm(~0u)}), Sub::v_any), 0x6);
  EXPECT_EQ(h.reg(0, 1), 0u);
  h.run(with(I(Op::vote, Type::pred, {R(0)}, {R(1), Imm(~0u)}), Sub::v_all), 0x9);
  EXPECT_EQ(h.reg(0, 0), 1u);
  h.run(with(I(Op::vote, Type::pred, {R(0)}, {R(1), Imm(~0u)}), Sub::v_uni), 0x3);
  EXPECT_EQ(h.reg(0, 0), 0u);
  h.run(I(Op::activemask, Type::b32, {R(0)}, {}), 0xf0f0);
  EXPECT_EQ(h.reg(0, 4), 0xf0f0u);
}

struct ShflTest : ::testing::Test {
  Harness h;
  ShflTest() {
    for (unsigned l = 0; l < 32; ++l) h.reg(1, l) = 100 + l;
  }
  void shfl(Sub mode, uint32_t b, uint32_t c, LaneMask mask = ~0u) {
    h.run(with(I(Op::shfl, Type::b32, {R(0), R(2)}, {R(1), Imm(b), Imm(c), Imm(~0u)}), mode), mask);
  }
};

TEST_F(ShflTest, DownClampsAtTheEnd) {
  shfl(Sub::s_down, 2, 0x1f);
  EXPECT_EQ(h.reg(0, 0), 102u);
  EXPECT_EQ(h.reg(2, 29), 1u);
  EXPECT_EQ(h.reg(0, 29), 131u);
  EXPECT_EQ(h.reg(0, 30), 130u);  // out of range: own value, p = 0
  EXPECT_EQ(h.reg(2, 30), 0u);
}

TEST_F(ShflTest, UpBflyIdxAndSegments) {
  shfl(Sub::s_up, 1, 0);
  EXPECT_EQ(h.reg(0, 0), 100u);
  EXPECT_EQ(h.reg(2, 0), 0u);
  EXPECT_EQ(h.reg(0, 5), 104u);
  shfl(Sub::s_bfly, 3, 0x1f);
  EXPECT_EQ(h.reg(0, 5), 106u);
  EXPECT_EQ(h.reg(2, 5), 1u);
  shfl(Sub::s_idx, 7, 0x1f);
  EXPECT_EQ(h.reg(0, 20), 107u);
  // Width 8 segments (__shfl_sync(..., 3, 8)): c = ((32 - 8) << 8) | 0x1f.
  shfl(Sub::s_idx, 3, (24u << 8) | 0x1f);
  EXPECT_EQ(h.reg(0, 13), 111u);
  EXPECT_EQ(h.reg(0, 31), 127u);
  // __shfl_down_sync(..., 1, 8): c = ((32 - 8) << 8) | 0x1f; lane 7 is the end of its segment.
  shfl(Sub::s_down, 1, (24u << 8) | 0x1f);
  EXPECT_EQ(h.reg(0, 6), 107u);
  EXPECT_EQ(h.reg(0, 7), 107u);
  EXPECT_EQ(h.reg(2, 7), 0u);
  // __shfl_up_sync(..., 1, 8): c = (32 - 8) << 8; lane 8 is the start of its segment.
  shfl(Sub::s_up, 1, 24u << 8);
  EXPECT_EQ(h.reg(0, 8), 108u);
  EXPECT_EQ(h.reg(2, 8), 0u);
  EXPECT_EQ(h.reg(0, 9), 108u);
}

TEST_F(ShflTest, InactiveSourceLaneGivesOwnValue) {
  shfl(Sub::s_down, 1, 0x1f, ~(1u << 5));
  EXPECT_EQ(h.reg(0, 4), 104u);
  EXPECT_EQ(h.reg(2, 4), 0u);
  EXPECT_EQ(h.reg(0, 3), 104u);
}

// Call-scope params param0/param1 in the local frame hold the format and argument addresses.
struct CallTest : ::testing::Test {
  Harness h;
  uint64_t text = h.global.allocate(256, 256, "strings");
  uint64_t args = h.global.allocate(256, 256, "args");
  uint32_t param(const char* name, uint64_t offset) {
    return h.add_symbol(Symbol{name, Space::param, Type::b64, 8, 8, false, true, 0, offset, {}, 1});
  }
  uint64_t put_string(uint64_t at, const std::string& s) {
    h.global.write(at, s.c_str(), s.size() + 1);
    return at;
  }
  template <class T>
  void put(uint64_t at, T v) {
    h.global.write(at, &v, sizeof v);
  }
  void set_param(unsigned lane, uint64_t offset, uint64_t v) {
    std::memcpy(h.warp.local.data() + lane * 64 + offset, &v, 8);
  }
};

TEST_F(CallTest, VprintfFormats) {
  uint32_t p0 = param("param0", 0), p1 = param("param1", 8), ret = param("retval0", 16);
  uint64_t fmt = put_string(
      text, "d=%d u=%u x=%08x X=%X o=%o c=%c f=%.3f e=%e g=%g s=[%5s] ld=%ld llu=%llu i=%-4i| 100%%\n");
  put_string(text + 200, "hi");
  put<int32_t>(args + 0, -42);
  put<uint32_t>(args + 4, 4000000000u);
  put<uint32_t>(args + 8, 0xbeef);
  put<uint32_t>(args + 12, 0xbeef);
  put<uint32_t>(args + 16, 8);
  put<int32_t>(args + 20, 'Z');
  put<double>(args + 24, 3.14159);
  put<double>(args + 32, 12345.678);
  put<double>(args + 40, 0.0001);
  put<uint64_t>(args + 48, text + 200);
  put<int64_t>(args + 56, -5000000000ll);
  put<uint64_t>(args + 64, 18000000000000000000ull);
  put<int32_t>(args + 72, 7);
  for (unsigned l = 0; l < 2; ++l) {
    set_param(l, 0, fmt);
    set_param(l, 8, args);
  }
  Instr call = with(I(Op::call, Type::none, {SymAddr(ret)}, {SymAddr(p0), SymAddr(p1)}), Sub::call_vprintf);
  h.run(call, 0x3);
  const std::string line =
      "d=-42 u=4000000000 x=0000beef X=BEEF o=10 c=Z f=3.142 e=1.234568e+04 g=0.0001 s=[   hi] "
      "ld=-5000000000 llu=18000000000000000000 i=7   | 100%\n";
  EXPECT_EQ(h.printed, line + line);
}

TEST_F(CallTest, DoubleArgumentsAreAlignedToEight) {
  uint32_t p0 = param("param0", 0), p1 = param("param1", 8);
  uint64_t fmt = put_string(text, "%d %f %p\n");
  put<int32_t>(args, 1);
  put<double>(args + 8, 2.5);
  put<uint64_t>(args + 16, 0x1000);
  set_param(0, 0, fmt);
  set_param(0, 8, args);
  h.run(with(I(Op::call, Type::none, {}, {SymAddr(p0), SymAddr(p1)}), Sub::call_vprintf), 1);
  EXPECT_EQ(h.printed, "1 2.500000 0x1000\n");
}

TEST_F(CallTest, AssertFailThrowsWithMessage) {
  uint32_t msg = param("param0", 0), file = param("param1", 8), line = param("param2", 16),
           fn = param("param3", 24);
  set_param(3, 0, put_string(text, "x > 0"));
  set_param(3, 8, put_string(text + 32, "kernel.cu"));
  set_param(3, 16, 17);
  set_param(3, 24, put_string(text + 64, "void k(int)"));
  Instr call = with(I(Op::call, Type::none, {}, {SymAddr(msg), SymAddr(file), SymAddr(line), SymAddr(fn)}),
                    Sub::call_assertfail);
  try {
    h.run(call, 0x8);
    FAIL();
  } catch (const KernelError& e) {
    EXPECT_THAT(std::string(e.what()),
                HasSubstr("assertion failed: kernel.cu:17: void k(int): Assertion `x > 0` failed at kernel "
                          "test_kernel, CTA (2,3,4), thread (3,0,0)"));
  }
}

}  // namespace
}  // namespace simtlm::ptx
