// Warp intrinsics with exact values, in diverged branches and partial warps: match, vote, shfl, redux, fns,
// brev, bfind, activemask, nanosleep, and the .sync member-mask rules. The nvcc kernels are in
// testbenches/ptx/warp_intrinsics.cu (sm_80 for redux); corner cases use hand-built IR.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <string>
#include <vector>

#include "models/ptx/parser.hpp"
#include "testbenches/unit/ir_builder.hpp"
#include "testbenches/unit/ptx_kernel_run.hpp"

namespace simtlm::ptx {
namespace {

using namespace build;
using test::kernel_ptx_path;
using test::KernelRun;
using ::testing::HasSubstr;

constexpr uint32_t kOut = 16;    // words per thread written by the kernels
constexpr uint32_t kBlock = 48;  // warp 1 of each CTA is partial (16 threads)

std::vector<uint32_t> lcg_words(size_t count, uint32_t seed) {
  std::vector<uint32_t> values(count);
  uint32_t state = seed;
  for (uint32_t& v : values) {
    state = state * 1664525u + 1013904223u;
    v = state;
  }
  return values;
}

// Lanes of the warp holding global thread `tid` (first lane's tid, valid lanes) in a 1-D launch.
struct WarpOf {
  uint32_t first_tid;
  uint32_t lanes;
};
WarpOf warp_of(uint32_t tid) {
  const uint32_t cta = tid / kBlock;
  const uint32_t in_cta = tid % kBlock;
  const uint32_t first = cta * kBlock + in_cta / 32 * 32;
  return {first, std::min<uint32_t>(32, cta * kBlock + kBlock - first)};
}

// ---- The nvcc kernels ------------------------------------------------------------------------------------

TEST(WarpIntrinsicsKernel, MatchAndVoteInADivergedBranchOfPartialWarps) {
  const Module module = load_ptx_file(kernel_ptx_path("warp_intrinsics.ptx"));
  constexpr uint32_t kThreads = 2 * kBlock;
  std::vector<uint32_t> keys(kThreads);
  std::vector<uint64_t> wide(kThreads);
  const std::vector<uint32_t> random = lcg_words(kThreads, 11);
  for (uint32_t i = 0; i < kThreads; ++i) {
    keys[i] = i == 70 ? 7 : random[i] % 6 + (i == 40 ? 2000 : 0);
    wide[i] = (uint64_t(i % 2) << 40) | keys[i];  // equal low halves, different high halves
  }
  KernelRun run(module, "match_and_vote", Dim3{2, 1, 1}, Dim3{kBlock, 1, 1});
  const uint64_t keys_addr = run.buffer(keys);
  const uint64_t wide_addr = run.buffer(wide);
  const uint64_t out_addr = run.buffer(std::vector<uint32_t>(kThreads * kOut, 0));
  run.param(0, keys_addr);
  run.param(1, wide_addr);
  run.param(2, out_addr);
  run.run();
  const std::vector<uint32_t> out = run.read<uint32_t>(out_addr, kThreads * kOut);
  for (uint32_t tid = 0; tid < kThreads; ++tid) {
    const uint32_t* got = &out[tid * kOut];
    if (tid % 3 == 0) {
      EXPECT_EQ(got[0], 0u);
      continue;
    }
    const WarpOf w = warp_of(tid);
    uint32_t members = 0;
    for (uint32_t l = 0; l < w.lanes; ++l) members |= uint32_t((w.first_tid + l) % 3 != 0) << l;
    auto over = [&](uint32_t group, auto&& predicate) {
      uint32_t mask = 0;
      for (uint32_t l = 0; l < 32; ++l) {
        if ((group >> l) & 1) mask |= uint32_t(predicate(w.first_tid + l)) << l;
      }
      return mask;
    };
    const uint32_t same_key = over(members, [&](uint32_t j) { return keys[j] == keys[tid]; });
    const uint32_t same_wide = over(members, [&](uint32_t j) { return wide[j] == wide[tid]; });
    const uint32_t first = w.first_tid + uint32_t(std::countr_zero(members));
    const bool all_keys =
        same_key == members && over(members, [&](uint32_t j) { return keys[j] == keys[first]; }) == members;
    const bool all_wide = over(members, [&](uint32_t j) { return wide[j] == wide[first]; }) == members;
    const uint32_t odd = over(members, [&](uint32_t j) { return (keys[j] & 1) != 0; });
    const uint32_t bit1 = over(members, [&](uint32_t j) { return (keys[j] & 2) != 0; });
    const uint32_t group = over(members, [&](uint32_t j) { return (keys[j] & 3) == (keys[tid] & 3); });
    SCOPED_TRACE("tid " + std::to_string(tid));
    EXPECT_EQ(got[0], members);
    EXPECT_EQ(got[1], same_key);
    EXPECT_EQ(got[2], all_keys ? members : 0u);
    EXPECT_EQ(got[3], uint32_t(all_keys));
    EXPECT_EQ(got[4], same_wide);
    EXPECT_EQ(got[5], all_wide ? members : 0u);
    EXPECT_EQ(got[6], uint32_t(all_wide));
    EXPECT_EQ(got[7], odd);
    EXPECT_EQ(got[8], uint32_t(over(members, [&](uint32_t j) { return keys[j] < 1000; }) == members));
    EXPECT_EQ(got[9], uint32_t(over(members, [&](uint32_t j) { return keys[j] == 7; }) != 0));
    EXPECT_EQ(got[10], uint32_t(bit1 == 0 || bit1 == members));
    EXPECT_EQ(got[11], group);
    EXPECT_EQ(got[12], 1u);
  }
  // The data exercises both outcomes of the all-tests.
  EXPECT_EQ(out[40 * kOut + 8], 0u);  // key 2000 in warp 1 of CTA 0
  EXPECT_EQ(out[70 * kOut + 9], 1u);  // key >= 7 in warp 0 of CTA 1
}

TEST(WarpIntrinsicsKernel, ReduxOverEachDivergedHalf) {
  const Module module = load_ptx_file(kernel_ptx_path("warp_intrinsics.ptx"));
  constexpr uint32_t kThreads = 2 * kBlock;
  std::vector<int32_t> values(kThreads);
  const std::vector<uint32_t> random = lcg_words(kThreads, 5);
  for (uint32_t i = 0; i < kThreads; ++i) values[i] = int32_t(random[i] % 2001) - 1000;
  KernelRun run(module, "reduce_halves", Dim3{2, 1, 1}, Dim3{kBlock, 1, 1});
  const uint64_t values_addr = run.buffer(values);
  const uint64_t out_addr = run.buffer(std::vector<uint32_t>(kThreads * kOut, 0));
  run.param(0, values_addr);
  run.param(1, out_addr);
  run.run();
  const std::vector<uint32_t> out = run.read<uint32_t>(out_addr, kThreads * kOut);
  for (uint32_t tid = 0; tid < kThreads; ++tid) {
    const WarpOf w = warp_of(tid);
    const uint32_t parity = (tid % kBlock) & 1;
    uint32_t members = 0, sum = 0, umin = ~0u, umax = 0, all = ~0u, any = 0, parity_bits = 0;
    int32_t smin = INT32_MAX, smax = INT32_MIN;
    for (uint32_t l = 0; l < w.lanes; ++l) {
      const uint32_t j = w.first_tid + l;
      if (((j % kBlock) & 1) != parity) continue;
      members |= 1u << l;
      const auto u = uint32_t(values[j]);
      sum += u;
      umin = std::min(umin, u);
      umax = std::max(umax, u);
      smin = std::min(smin, values[j]);
      smax = std::max(smax, values[j]);
      all &= u;
      any |= u;
      parity_bits ^= u;
    }
    const uint32_t* got = &out[tid * kOut];
    SCOPED_TRACE("tid " + std::to_string(tid));
    EXPECT_EQ(got[0], members);
    EXPECT_EQ(got[1], sum);
    EXPECT_EQ(got[5], uint32_t(smin));
    EXPECT_EQ(got[9], parity_bits);
    if (parity == 1) {
      EXPECT_EQ(got[2], umin);
      EXPECT_EQ(got[3], umax);
      EXPECT_EQ(got[4], sum);
      EXPECT_EQ(got[6], uint32_t(smax));
      EXPECT_EQ(got[7], all);
      EXPECT_EQ(got[8], any);
    } else {
      EXPECT_EQ(got[2], 0u);
    }
  }
}

// Reference bit operations, written from the PTX ISA's definitions.
uint32_t reference_fns(uint32_t mask, uint32_t base, int32_t offset) {
  if (offset == 0) return (mask >> base) & 1 ? base : 0xffffffffu;
  int remaining = std::abs(offset) - 1;
  for (int pos = int(base); pos >= 0 && pos<32; pos += offset> 0 ? 1 : -1) {
    if (!((mask >> pos) & 1)) continue;
    if (remaining-- == 0) return uint32_t(pos);
  }
  return 0xffffffffu;
}
uint32_t reference_bfind(uint64_t value, unsigned bits, bool is_signed, bool shift_amount) {
  if (bits == 32) value &= 0xffffffffu;
  if (is_signed && ((value >> (bits - 1)) & 1)) value = ~value & (bits == 32 ? 0xffffffffull : ~0ull);
  for (int pos = int(bits) - 1; pos >= 0; --pos) {
    if ((value >> pos) & 1) return shift_amount ? bits - 1 - uint32_t(pos) : uint32_t(pos);
  }
  return 0xffffffffu;
}

TEST(WarpIntrinsicsKernel, ShufflesWithSegmentsAndBitOperations) {
  const Module module = load_ptx_file(kernel_ptx_path("warp_intrinsics.ptx"));
  constexpr uint32_t kThreads = kBlock;
  std::vector<uint32_t> values = lcg_words(kThreads, 23);
  values[0] = 0;
  values[1] = 0xffffffffu;
  values[2] = 0x80000000u;
  values[3] = 1;
  values[33] = 0;
  KernelRun run(module, "shuffle_and_bits", Dim3{1, 1, 1}, Dim3{kBlock, 1, 1});
  const uint64_t values_addr = run.buffer(values);
  const uint64_t out_addr = run.buffer(std::vector<uint32_t>(kThreads * kOut, 0));
  run.param(0, values_addr);
  run.param(1, out_addr);
  run.run();
  const std::vector<uint32_t> out = run.read<uint32_t>(out_addr, kThreads * kOut);
  for (uint32_t tid = 0; tid < kThreads; ++tid) {
    const WarpOf w = warp_of(tid);
    const uint32_t lane = tid % 32;
    const uint32_t members = w.lanes == 32 ? ~0u : (1u << w.lanes) - 1;
    // A source lane outside the warp's threads gives the lane's own value.
    auto from = [&](uint32_t source_lane) {
      return source_lane < w.lanes ? values[w.first_tid + source_lane] : values[tid];
    };
    const uint32_t v = values[tid];
    const uint64_t wide = (uint64_t(v) << 20) | tid;
    const uint32_t* got = &out[tid * kOut];
    SCOPED_TRACE("tid " + std::to_string(tid));
    EXPECT_EQ(got[0], members);
    EXPECT_EQ(got[1], from((lane & ~7u) | 5));               // width 8, lane 5 of the segment
    EXPECT_EQ(got[2], lane % 16 >= 3 ? from(lane - 3) : v);  // width 16: no lane below the segment
    EXPECT_EQ(got[3], lane + 2 <= 31 ? from(lane + 2) : v);  // past lane 31: own value
    EXPECT_EQ(got[4], from(lane ^ 9));
    EXPECT_EQ(got[5], from(5));
    EXPECT_EQ(got[6], reference_fns(v, lane, 2));
    EXPECT_EQ(got[7], reference_fns(v, lane, -3));
    EXPECT_EQ(got[8], reference_fns(v, 7, 0));
    EXPECT_EQ(
        got[9], std::bit_cast<uint32_t>(v) == 0 ? 0u : [&] {
          uint32_t r = 0;
          for (int i = 0; i < 32; ++i) r |= ((v >> i) & 1) << (31 - i);
          return r;
        }());
    EXPECT_EQ(got[10], v == 0 ? 0u : uint32_t(std::countr_zero(v)) + 1);
    EXPECT_EQ(got[11], reference_bfind(v, 32, true, false));
    EXPECT_EQ(got[12], reference_bfind(wide, 64, false, false));
    EXPECT_EQ(got[13], reference_bfind(wide - (uint64_t{1} << 40), 64, true, true));
    EXPECT_EQ(got[14], members);
  }
  EXPECT_EQ(out[0 * kOut + 11], 0xffffffffu);  // bfind.s32 of 0
  EXPECT_EQ(out[1 * kOut + 11], 0xffffffffu);  // and of -1
  EXPECT_EQ(out[2 * kOut + 11], 30u);          // INT_MIN: highest non-sign bit is bit 30
  EXPECT_EQ(out[0 * kOut + 10], 0u);           // __ffs(0)
  EXPECT_EQ(out[2 * kOut + 10], 32u);          // __ffs(0x80000000)
}

// ---- Corner cases on hand-built instructions --------------------------------------------------------------

Instr sync(Instr in) {
  in.flags |= kSync;
  return in;
}

std::string error_of(Harness& h, const Instr& in, LaneMask mask) {
  try {
    h.run(in, mask);
  } catch (const KernelError& e) {
    return e.what();
  }
  return "";
}

TEST(WarpMemberMask, AnExecutingLaneMustNameItself) {
  Harness h;
  h.set_all(1, 1);
  const Instr vote = sync(with(I(Op::vote, Type::b32, {R(0)}, {R(1), Imm(0x7f)}), Sub::v_ballot));
  EXPECT_THAT(error_of(h, vote, 0xff),
              HasSubstr("vote.sync with member mask 0x0000007f, which does not name the executing lane 7 at "
                        "kernel test_kernel, CTA (2,3,4), thread (7,0,0), PC 0"));
  const Instr shfl =
      sync(with(I(Op::shfl, Type::b32, {R(0)}, {R(1), Imm(0), Imm(0x1f), Imm(0xfffffffe)}), Sub::s_idx));
  EXPECT_THAT(error_of(h, shfl, 0x3), HasSubstr("shfl.sync with member mask 0xfffffffe, which does not name "
                                                "the executing lane 0 at kernel test_kernel"));
}

TEST(WarpMemberMask, ALiveMemberThatDoesNotExecuteIsAnError) {
  Harness h;
  const Instr vote = sync(with(I(Op::vote, Type::pred, {R(0)}, {R(1), Imm(0xff)}), Sub::v_all));
  EXPECT_THAT(
      error_of(h, vote, 0x0f),
      HasSubstr("vote.sync with member mask 0x000000ff: lane 4 is a live member but does not execute "
                "this instruction with the others (executing lanes 0x0000000f; diverged or predicated "
                "off) at kernel test_kernel, CTA (2,3,4), thread (0,0,0), PC 0"));
  // Predicated off counts as not executing.
  for (unsigned l = 0; l < 32; ++l) h.reg(2, l) = l != 3;
  const Instr guarded = guard(sync(with(I(Op::redux, Type::u32, {R(0)}, {R(1), Imm(0xf)}), Sub::r_add)), 2);
  EXPECT_THAT(error_of(h, guarded, 0xf),
              HasSubstr("redux.sync with member mask 0x0000000f: lane 3 is a live member"));
  const Instr match = sync(with(I(Op::match, Type::b32, {R(0)}, {R(1), Imm(~0u)}), Sub::m_any));
  EXPECT_THAT(error_of(h, match, 0xffff), HasSubstr("match.sync with member mask 0xffffffff: lane 16"));
}

TEST(WarpMemberMask, ExitedAndAbsentLanesMayBeNamed) {
  Harness h(32, Dim3{24, 1, 1});  // lanes 24..31 hold no thread
  h.executor->init_warp(h.warp, h.cta, 0);
  for (unsigned l = 0; l < 32; ++l) h.reg(1, l) = l;
  h.run(I(Op::exit, Type::none, {}, {}), 0x00f0);  // lanes 4..7 exit
  h.run(sync(with(I(Op::redux, Type::u32, {R(0)}, {R(1), Imm(~0u)}), Sub::r_add)), 0x00ffff0f);
  uint32_t expected = 0;
  for (unsigned l = 0; l < 24; ++l) expected += (l < 4 || l >= 8) ? l : 0;
  EXPECT_EQ(h.reg(0, 0), expected);
  EXPECT_EQ(h.reg(0, 23), expected);
  h.run(sync(with(I(Op::match, Type::b32, {R(0), R(2)}, {Imm(9), Imm(~0u)}), Sub::m_all)), 0x00ffff0f);
  EXPECT_EQ(h.reg(0, 9), 0x00ffff0fu);  // every non-exited member
  EXPECT_EQ(h.reg(2, 9), 1u);
  // The pre-sync forms have no member rules: any subset of lanes may execute.
  h.run(with(I(Op::vote, Type::b32, {R(0)}, {R(1), Imm(~0u)}), Sub::v_ballot), 0x3);
  EXPECT_EQ(h.reg(0, 1), 0x2u);
}

TEST(WarpMemberMask, TiledGroupsWithDifferentMasksInOneInstruction) {
  Harness h;
  for (unsigned l = 0; l < 32; ++l) {
    h.reg(1, l) = l < 16 ? 0x0000ffffu : 0xffff0000u;  // two groups of 16
    h.reg(3, l) = l % 4 == 0 ? 5 : l;
  }
  h.run(sync(with(I(Op::redux, Type::s32, {R(0)}, {R(3), R(1)}), Sub::r_min)), ~0u);
  EXPECT_EQ(h.reg(0, 7), 1u);
  EXPECT_EQ(h.reg(0, 16), 5u);
  h.run(sync(with(I(Op::match, Type::b32, {R(0)}, {R(3), R(1)}), Sub::m_any)), ~0u);
  EXPECT_EQ(h.reg(0, 0), 0x1131u);  // value 5: lanes 0, 4, 8, 12 and lane 5
  EXPECT_EQ(h.reg(0, 20), 0x11110000u);
  h.run(sync(with(I(Op::vote, Type::b32, {R(0)}, {R(3), R(1)}), Sub::v_ballot)), ~0u);  // odd values
  EXPECT_EQ(h.reg(0, 0), 0xbbbbu);  // odd lanes and lanes 0, 4, 8, 12 (value 5)
  EXPECT_EQ(h.reg(0, 31), 0xbbbb0000u);
}

TEST(WarpRedux, SignedAndUnsignedOrderAndBitwiseOperations) {
  Harness h;
  const int32_t v[4] = {-5, 7, -2147483647 - 1, 100};
  for (unsigned l = 0; l < 4; ++l) h.reg(1, l) = uint32_t(v[l]);
  auto redux = [&](Type t, Sub op) {
    h.run(sync(with(I(Op::redux, t, {R(0)}, {R(1), Imm(0xf)}), op)), 0xf);
    EXPECT_EQ(h.reg(0, 0), h.reg(0, 3));
    return uint32_t(h.reg(0, 2));
  };
  EXPECT_EQ(redux(Type::s32, Sub::r_min), 0x80000000u);
  EXPECT_EQ(redux(Type::s32, Sub::r_max), 100u);
  EXPECT_EQ(redux(Type::u32, Sub::r_min), 7u);
  EXPECT_EQ(redux(Type::u32, Sub::r_max), uint32_t(-5));
  EXPECT_EQ(redux(Type::u32, Sub::r_add), uint32_t(-5 + 7 + 100) + 0x80000000u);
  EXPECT_EQ(redux(Type::b32, Sub::r_and), uint32_t(-5) & 7u & 0x80000000u & 100u);
  EXPECT_EQ(redux(Type::b32, Sub::r_or), uint32_t(-5) | 7u | 0x80000000u | 100u);
  EXPECT_EQ(redux(Type::b32, Sub::r_xor), uint32_t(-5) ^ 7u ^ 0x80000000u ^ 100u);
}

TEST(WarpShfl, ClampSegmentAndOutOfRangeSources) {
  Harness h;
  for (unsigned l = 0; l < 32; ++l) h.reg(1, l) = 100 + l;
  auto shfl = [&](Sub mode, uint32_t b, uint32_t c, LaneMask mask = ~0u) {
    h.run(sync(with(I(Op::shfl, Type::b32, {R(0), R(2)}, {R(1), Imm(b), Imm(c), Imm(mask)}), mode)), mask);
  };
  shfl(Sub::s_down, 4, 0x0f);  // clamp at lane 15: lanes 12..15 are past it
  EXPECT_EQ(h.reg(0, 11), 115u);
  EXPECT_EQ(h.reg(0, 12), 112u);
  EXPECT_EQ(h.reg(2, 12), 0u);
  EXPECT_EQ(h.reg(0, 20), 120u);  // lane 20 > clamp 15: own value
  shfl(Sub::s_idx, 33, 0x1f);     // only the low 5 bits of b: lane 1
  EXPECT_EQ(h.reg(0, 30), 101u);
  EXPECT_EQ(h.reg(2, 30), 1u);
  shfl(Sub::s_bfly, 16, (16u << 8) | 0x0f);  // segments of 16: xor 16 leaves the segment
  EXPECT_EQ(h.reg(0, 3), 103u);
  EXPECT_EQ(h.reg(2, 3), 0u);
  shfl(Sub::s_up, 2, (28u << 8));  // segments of 4
  EXPECT_EQ(h.reg(0, 6), 104u);
  EXPECT_EQ(h.reg(0, 5), 105u);
  EXPECT_EQ(h.reg(2, 5), 0u);
  shfl(Sub::s_down, 1, 0x1f, 0x0000ffff);  // member mask of 16 lanes, lane 16 not executing: own value
  EXPECT_EQ(h.reg(0, 15), 115u);
  EXPECT_EQ(h.reg(2, 15), 0u);
  EXPECT_EQ(h.reg(0, 14), 115u);
}

TEST(WarpBits, BfindBrevFnsActivemaskNanosleep) {
  Harness h;
  auto one = [&](Instr in, uint64_t a) {
    h.reg(1, 0) = a;
    h.run(in, 1);
    return h.reg(0, 0);
  };
  const Instr bfind_u32 = I(Op::bfind, Type::u32, {R(0)}, {R(1)});
  const Instr bfind_s32 = I(Op::bfind, Type::s32, {R(0)}, {R(1)});
  const Instr bfind_u64 = I(Op::bfind, Type::u64, {R(0)}, {R(1)});
  const Instr bfind_s64 = I(Op::bfind, Type::s64, {R(0)}, {R(1)});
  EXPECT_EQ(one(bfind_u32, 0x00010000), 16u);
  EXPECT_EQ(one(bfind_u32, 0), 0xffffffffu);
  EXPECT_EQ(one(flags(bfind_u32, kShiftAmt), 0x00010000), 15u);
  EXPECT_EQ(one(flags(bfind_u32, kShiftAmt), 0), 0xffffffffu);
  EXPECT_EQ(one(bfind_s32, 0xfffff000u), 11u);
  EXPECT_EQ(one(bfind_s32, 0x7fffffffu), 30u);
  EXPECT_EQ(one(flags(bfind_s32, kShiftAmt), 0xfffff000u), 20u);
  EXPECT_EQ(one(bfind_u64, 0x8000000000000000ull), 63u);
  EXPECT_EQ(one(flags(bfind_u64, kShiftAmt), 0x0000000100000000ull), 31u);
  EXPECT_EQ(one(bfind_s64, ~0ull), 0xffffffffu);
  EXPECT_EQ(one(bfind_s64, 0xffffffff00000000ull), 31u);
  EXPECT_EQ(one(I(Op::brev, Type::b32, {R(0)}, {R(1)}), 0x00000001u), 0x80000000u);
  EXPECT_EQ(one(I(Op::brev, Type::b64, {R(0)}, {R(1)}), 0x3ull), 0xc000000000000000ull);
  // fns: the examples of the PTX ISA.
  auto fns = [&](uint32_t mask, uint32_t base, int32_t offset) {
    h.run(I(Op::fns, Type::b32, {R(0)}, {Imm(mask), Imm(base), Imm(uint32_t(offset))}), 1);
    return uint32_t(h.reg(0, 0));
  };
  EXPECT_EQ(fns(0xaaaaaaaa, 3, 1), 3u);
  EXPECT_EQ(fns(0xaaaaaaaa, 3, -1), 3u);
  EXPECT_EQ(fns(0xaaaaaaaa, 2, 1), 3u);
  EXPECT_EQ(fns(0xaaaaaaaa, 2, -1), 1u);
  EXPECT_EQ(fns(0xaaaaaaaa, 2, 0), 0xffffffffu);
  EXPECT_EQ(fns(0xaaaaaaaa, 0, 16), 31u);
  EXPECT_EQ(fns(0xaaaaaaaa, 0, 17), 0xffffffffu);
  EXPECT_EQ(fns(0xaaaaaaaa, 31, -16), 1u);
  EXPECT_THAT(error_of(h, I(Op::fns, Type::b32, {R(0)}, {Imm(1), Imm(32), Imm(1)}), 1),
              HasSubstr("fns with base 32 (must be at most 31) at kernel test_kernel"));
  h.run(I(Op::activemask, Type::b32, {R(0)}, {}), 0x00f0f0f0);
  EXPECT_EQ(h.reg(0, 4), 0x00f0f0f0u);
  h.set_all(0, 77);
  const WarpStep step = h.run(I(Op::nanosleep, Type::u32, {}, {Imm(1000)}), ~0u);
  EXPECT_EQ(step.kind, StepKind::normal);
  EXPECT_EQ(h.reg(0, 31), 77u);
}

// ---- Decoding
// -----------------------------------------------------------------------------------------------

Module warp_module(const std::string& body) {
  return parse_ptx(
      ".version 9.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n"
      ".reg .pred %p<3>;\n.reg .b32 %r<6>;\n.reg .b64 %rd<3>;\n" +
          body + "\nret;\n}\n",
      "warp.ptx");
}

TEST(WarpDecode, FormsOfTheNewInstructions) {
  const Module module = warp_module(
      "match.any.sync.b64 %r1, %rd1, %r2;\n"
      "match.all.sync.b32 %r1|%p1, %r2, 0xffffffff;\n"
      "redux.sync.min.s32 %r1, %r2, %r3;\n"
      "redux.sync.xor.b32 %r1, %r2, -1;\n"
      "fns.b32 %r1, %r2, %r3, -1;\n"
      "nanosleep.u32 100;\n"
      "nanosleep.u32 %r4;\n"
      "vote.sync.uni.pred %p1, !%p2, %r1;\n"
      "shfl.sync.bfly.b32 %r1|%p1, %r2, 1, 0x1f, -1;");
  const std::vector<Instr>& code = module.functions[0].code;
  ASSERT_EQ(code.size(), 10u);
  EXPECT_EQ(code[0].op, Op::match);
  EXPECT_EQ(code[0].sub, Sub::m_any);
  EXPECT_EQ(code[0].type, Type::b64);
  EXPECT_TRUE(code[0].flags & kSync);
  EXPECT_EQ(code[1].sub, Sub::m_all);
  EXPECT_EQ(code[1].ndst, 2u);
  EXPECT_EQ(code[1].src[1].imm, 0xffffffffu);
  EXPECT_EQ(code[2].op, Op::redux);
  EXPECT_EQ(code[2].sub, Sub::r_min);
  EXPECT_EQ(code[2].type, Type::s32);
  EXPECT_EQ(code[3].sub, Sub::r_xor);
  EXPECT_EQ(code[4].op, Op::fns);
  EXPECT_EQ(code[4].src[2].imm, 0xffffffffffffffffull);
  EXPECT_EQ(code[5].op, Op::nanosleep);
  EXPECT_EQ(code[5].src[0].imm, 100u);
  EXPECT_EQ(code[6].src[0].kind, OperandKind::reg);
  EXPECT_EQ(code[7].sub, Sub::v_uni);
  EXPECT_TRUE(code[7].src[0].negate);
  EXPECT_TRUE(code[8].flags & kSync);
  EXPECT_EQ(code[8].ndst, 2u);
  EXPECT_STREQ(op_name(Op::nanosleep), "nanosleep");
}

TEST(WarpDecode, MalformedAndUnsupportedForms) {
  EXPECT_THROW(warp_module("match.any.b32 %r1, %r2, %r3;"), PtxError);           // needs .sync
  EXPECT_THROW(warp_module("match.any.sync.b32 %r1|%p1, %r2, %r3;"), PtxError);  // p only with .all
  EXPECT_THROW(warp_module("fns.b32 %r1, %r2, %r3;"), PtxError);                 // operand count
  EXPECT_THROW(warp_module("vote.sync.ballot.pred %p1, %p2, %r1;"), PtxError);   // ballot is .b32
  const Module module = warp_module("redux.sync.add.b32 %r1, %r2, %r3;");        // add takes .u32/.s32
  EXPECT_THAT(module.functions[0].unsupported, HasSubstr("redux .add/.min/.max take .u32 or .s32"));
}

// ---- Diverged warp-level calls in a PTX kernel ------------------------------------------------------------

TEST(WarpMemberMask, DivergedFullMaskShuffleNamesKernelCtaWarpAndPc) {
  const Module module = parse_ptx(R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry diverged_shuffle(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 bra $L__shuffle;
  ret;
$L__shuffle:
  shfl.sync.idx.b32 %r2, %r1, 0, 31, -1;
  ret;
}
)",
                                  "diverged.ptx");
  KernelRun run(module, "diverged_shuffle", Dim3{2, 1, 1}, Dim3{32, 1, 1});
  EXPECT_EQ(run.error(),
            "shfl.sync with member mask 0xffffffff: lane 16 is a live member but does not execute this "
            "instruction with the others (executing lanes 0x0000ffff; diverged or predicated off) at kernel "
            "diverged_shuffle, CTA (0,0,0), thread (0,0,0), PC 4 (PTX line 13)");
}

}  // namespace
}  // namespace simtlm::ptx
