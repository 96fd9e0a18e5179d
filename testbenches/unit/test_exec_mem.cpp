// Global memory, ld/st/atom/red, cvta and the runtime errors of memory accesses.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "testbenches/unit/ir_builder.hpp"

namespace simtlm::ptx {
namespace {

using namespace build;
using ::testing::HasSubstr;

TEST(GlobalMemory, AllocateAlignedWithGuardGaps) {
  GlobalMemory m;
  uint64_t a = m.allocate(100, 16, "a");
  uint64_t b = m.allocate(4096, 1024, "b");
  EXPECT_EQ(a % 256, 0u);
  EXPECT_EQ(b % 1024, 0u);
  EXPECT_GT(b, a + 100);  // a guard gap separates them
  EXPECT_EQ(m.find(a, 100)->name, "a");
  EXPECT_EQ(m.find(a + 99, 1)->name, "a");
  EXPECT_EQ(m.find(a + 99, 2), nullptr);  // straddles the end
  EXPECT_EQ(m.find(a + 100, 1), nullptr);
  EXPECT_EQ(m.find(b + 4095, 1)->name, "b");
  EXPECT_EQ(m.find(a - 1, 1), nullptr);
  uint32_t v = 0xdeadbeef;
  m.read(b, &v, 4);
  EXPECT_EQ(v, 0u);  // fresh memory reads as zero
  uint8_t big[70000];
  for (size_t i = 0; i < sizeof big; ++i) big[i] = uint8_t(i * 7);
  uint64_t c = m.allocate(sizeof big, 256, "c");
  m.write(c + 1, big, sizeof big - 1);  // crosses a 64 KiB page boundary
  uint8_t back[70000] = {};
  m.read(c + 1, back, sizeof big - 1);
  EXPECT_EQ(std::memcmp(big, back, sizeof big - 1), 0);
}

struct MemTest : ::testing::Test {
  Harness h;
  uint64_t buf = h.global.allocate(256, 256, "buf");
  void set_addresses(uint32_t reg, uint64_t base, uint64_t stride) {
    for (unsigned l = 0; l < 32; ++l) h.reg(reg, l) = base + l * stride;
  }
};

TEST_F(MemTest, GlobalLoadStoreAndAccessReport) {
  set_addresses(1, buf, 4);
  for (unsigned l = 0; l < 32; ++l) h.reg(2, l) = 100 + l;
  WarpStep s = h.run(with(I(Op::st, Type::u32, {}, {Mem(1), R(2)}), Space::global));
  EXPECT_EQ(s.kind, StepKind::memory);
  EXPECT_TRUE(s.mem.is_store);
  EXPECT_EQ(s.mem.bytes, 4);
  EXPECT_EQ(s.mem.addr[3], buf + 12);
  uint32_t word;
  h.global.read(buf + 8, &word, 4);
  EXPECT_EQ(word, 102u);
  s = h.run(with(I(Op::ld, Type::u32, {R(3)}, {Mem(1, 4)}), Space::global), 0x1u);  // [r1+4]
  EXPECT_FALSE(s.mem.is_store);
  EXPECT_EQ(s.mem.space, Space::global);
  EXPECT_EQ(h.reg(3, 0), 101u);
}

TEST_F(MemTest, SubWordLoadsExtend) {
  uint8_t bytes[4] = {0x80, 0xff, 0x7f, 0x00};
  h.global.write(buf, bytes, 4);
  h.reg(1) = buf;
  h.run(with(I(Op::ld, Type::s8, {R(2)}, {Mem(1)}), Space::global), 1);
  EXPECT_EQ(uint32_t(h.reg(2)), 0xffffff80u);
  h.run(with(I(Op::ld, Type::u8, {R(2)}, {Mem(1)}), Space::global), 1);
  EXPECT_EQ(h.reg(2), 0x80u);
  h.run(with(I(Op::ld, Type::s16, {R(2)}, {Mem(1)}), Space::global), 1);
  EXPECT_EQ(uint32_t(h.reg(2)), 0xffffff80u);
  h.run(with(I(Op::ld, Type::u16, {R(2)}, {Mem(1, 2)}), Space::global), 1);
  EXPECT_EQ(h.reg(2), 0x007fu);
}

TEST_F(MemTest, VectorLoadStore) {
  h.reg(1) = buf + 16;
  h.reg(4) = std::bit_cast<uint32_t>(1.5f);
  h.reg(5) = 7;
  h.reg(6) = 8;
  Instr st = with(I(Op::st, Type::b32, {}, {Mem(1), Vec({4, 5, 6, 5})}), Space::global);
  st.vec = 4;
  WarpStep s = h.run(st, 1);
  EXPECT_EQ(s.mem.bytes, 16);
  Instr ld = with(I(Op::ld, Type::b32, {Vec({10, 11, 12, kNoReg})}, {Mem(1)}), Space::global);
  ld.vec = 4;
  h.run(ld, 1);
  EXPECT_EQ(h.reg(10), std::bit_cast<uint32_t>(1.5f));
  EXPECT_EQ(h.reg(11), 7u);
  EXPECT_EQ(h.reg(12), 8u);
  h.reg(1) = buf + 8;  // a v4 of b32 needs 16-byte alignment
  EXPECT_THROW(h.run(ld, 1), KernelError);
}

TEST_F(MemTest, MisalignedAndOutOfBoundsMessages) {
  Instr ld = with(I(Op::ld, Type::u32, {R(2)}, {Mem(1)}), Space::global);
  ld.loc_file = 1;
  ld.loc_line = 42;
  h.reg(1, 5) = buf + 2;
  try {
    h.run(ld, 1u << 5);
    FAIL() << "expected a KernelError";
  } catch (const KernelError& e) {
    std::string m = e.what();
    EXPECT_THAT(m, HasSubstr("misaligned global access of 4 bytes"));
    EXPECT_THAT(
        m, HasSubstr("kernel test_kernel, CTA (2,3,4), thread (5,0,0), PC 0 (PTX line 100, kernel.cu:42)"));
  }
  h.reg(1, 5) = buf + 256;
  try {
    h.run(ld, 1u << 5);
    FAIL() << "expected a KernelError";
  } catch (const KernelError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("out-of-bounds global access of 4 bytes"));
  }
  h.reg(1, 0) = 1020;  // the CTA has 1024 bytes of shared memory
  try {
    h.run(with(I(Op::st, Type::u64, {}, {Mem(1), Imm(1)}), Space::shared), 1);
    FAIL() << "expected a KernelError";
  } catch (const KernelError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("misaligned shared"));
  }
  h.reg(1, 0) = 1024;
  EXPECT_THROW(h.run(with(I(Op::st, Type::u32, {}, {Mem(1), Imm(1)}), Space::shared), 1), KernelError);
  h.reg(1, 0) = 64;  // the local frame has 64 bytes
  EXPECT_THROW(h.run(with(I(Op::ld, Type::u32, {R(2)}, {Mem(1)}), Space::local), 1), KernelError);
}

TEST_F(MemTest, GenericWindowsThroughCvta) {
  // Shared: store through a generic address, read back with ld.shared.
  set_addresses(1, 0, 4);
  h.run(with(with(I(Op::cvta, Type::u64, {R(2)}, {R(1)}), Sub::from_space), Space::shared));
  EXPECT_EQ(h.reg(2, 3), kSharedWindow + 12);
  for (unsigned l = 0; l < 32; ++l) h.reg(3, l) = l * 10;
  WarpStep s = h.run(I(Op::st, Type::u32, {}, {Mem(2), R(3)}));  // generic
  EXPECT_EQ(s.mem.space, Space::shared);
  EXPECT_EQ(s.mem.addr[3], 12u);
  h.run(with(I(Op::ld, Type::u32, {R(4)}, {Mem(1)}), Space::shared));
  EXPECT_EQ(h.reg(4, 7), 70u);
  h.run(with(with(I(Op::cvta, Type::u64, {R(5)}, {R(2)}), Sub::to_space), Space::shared));
  EXPECT_EQ(h.reg(5, 9), 36u);
  // Local: each thread has its own frame at the same generic address.
  uint32_t depot =
      h.add_symbol(Symbol{"__local_depot0", Space::local, Type::b8, 16, 8, false, false, 0, 8, {}, 1});
  h.run(I(Op::mov, Type::u64, {R(6)}, {SymAddr(depot)}));
  EXPECT_EQ(h.reg(6, 0), 8u);
  h.run(with(with(I(Op::cvta, Type::u64, {R(7)}, {R(6)}), Sub::from_space), Space::local));
  EXPECT_EQ(h.reg(7, 0), kLocalWindow + 8);
  h.run(I(Op::st, Type::u32, {}, {Mem(7), R(3)}));
  h.run(with(I(Op::ld, Type::u32, {R(8)}, {Mem(kNoReg, 0, depot)}), Space::local));
  EXPECT_EQ(h.reg(8, 4), 40u);
  EXPECT_EQ(h.reg(8, 31), 310u);
}

TEST_F(MemTest, KernelParamsComeFromTheParamBuffer) {
  h.launch.param_buffer = {0, 0, 0, 0, 0, 0, 0, 0, 0x78, 0x56, 0x34, 0x12};
  uint32_t p = h.add_symbol(Symbol{"p1", Space::param, Type::u32, 4, 4, false, false, 0, 8, {}, 1});
  h.run(with(I(Op::ld, Type::u32, {R(2)}, {Mem(kNoReg, 0, p)}), Space::param), 1);
  EXPECT_EQ(h.reg(2), 0x12345678u);
  EXPECT_THROW(h.run(with(I(Op::ld, Type::u64, {R(2)}, {Mem(kNoReg, 8, p)}), Space::param), 1), KernelError);
}

TEST_F(MemTest, SharedAtomicsRunInLaneOrder) {
  h.set_all(1, 16);
  WarpStep s = h.run(with(with(I(Op::atom, Type::u32, {R(2)}, {Mem(1), Imm(1)}), Sub::a_add), Space::shared));
  EXPECT_TRUE(s.mem.is_atomic);
  for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(h.reg(2, l), l);
  uint32_t v;
  std::memcpy(&v, h.cta.shared.data() + 16, 4);
  EXPECT_EQ(v, 32u);
  // inc wraps at the bound: old values 32, 0, 1, 0, 1 ... with bound 1 ... start from 32 >= 1 -> 0.
  h.run(with(with(I(Op::atom, Type::u32, {R(2)}, {Mem(1), Imm(1)}), Sub::a_inc), Space::shared), 0x7);
  EXPECT_EQ(h.reg(2, 0), 32u);
  EXPECT_EQ(h.reg(2, 1), 0u);
  EXPECT_EQ(h.reg(2, 2), 1u);
  // cas: only the first lane that sees the expected value swaps.
  std::memset(h.cta.shared.data() + 16, 0, 4);
  for (unsigned l = 0; l < 32; ++l) h.reg(3, l) = l + 1;
  h.run(with(with(I(Op::atom, Type::b32, {R(2)}, {Mem(1), Imm(0), R(3)}), Sub::a_cas), Space::shared), 0xf0);
  std::memcpy(&v, h.cta.shared.data() + 16, 4);
  EXPECT_EQ(v, 5u);
  EXPECT_EQ(h.reg(2, 4), 0u);
  EXPECT_EQ(h.reg(2, 5), 5u);
  // dec and signed min, max
  h.run(with(with(I(Op::atom, Type::u32, {R(2)}, {Mem(1), Imm(9)}), Sub::a_dec), Space::shared), 1);
  std::memcpy(&v, h.cta.shared.data() + 16, 4);
  EXPECT_EQ(v, 4u);
  h.run(with(with(I(Op::red, Type::s32, {}, {Mem(1), Imm(0xfffffffe)}), Sub::a_min), Space::shared), 1);
  std::memcpy(&v, h.cta.shared.data() + 16, 4);
  EXPECT_EQ(v, 0xfffffffeu);
  h.run(with(with(I(Op::red, Type::u32, {}, {Mem(1), Imm(3)}), Sub::a_max), Space::shared), 1);
  std::memcpy(&v, h.cta.shared.data() + 16, 4);
  EXPECT_EQ(v, 0xfffffffeu);
  h.run(with(with(I(Op::atom, Type::b32, {R(2)}, {Mem(1), Imm(0xf0)}), Sub::a_exch), Space::shared), 1);
  h.run(with(with(I(Op::red, Type::b32, {}, {Mem(1), Imm(0x3c)}), Sub::a_xor), Space::shared), 1);
  std::memcpy(&v, h.cta.shared.data() + 16, 4);
  EXPECT_EQ(v, 0xccu);
}

TEST_F(MemTest, GlobalFloatAndWideAtomics) {
  h.set_all(1, buf);
  h.run(with(with(I(Op::red, Type::f32, {}, {Mem(1), Imm(std::bit_cast<uint32_t>(0.5f))}), Sub::a_add),
             Space::global));
  float f;
  h.global.read(buf, &f, 4);
  EXPECT_EQ(f, 16.0f);
  h.set_all(1, buf + 8);
  h.run(with(with(I(Op::atom, Type::u64, {R(2)}, {Mem(1), Imm(1ull << 40)}), Sub::a_add), Space::global), 3);
  EXPECT_EQ(h.reg(2, 1), 1ull << 40);
  EXPECT_THROW(
      h.run(with(with(I(Op::atom, Type::u64, {R(2)}, {Mem(1, 4), Imm(1)}), Sub::a_add), Space::global), 1),
      KernelError);
}

}  // namespace
}  // namespace simtlm::ptx
