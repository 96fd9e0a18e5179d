// The static analyses on texture fetches: herding safety (a tex never faults, so it is no vulnerable
// operation) and taint (a tex result is data loaded from memory, like an ld's).
#include <gtest/gtest.h>

#include <string>

#include "models/ptx/herd_safety.hpp"
#include "models/ptx/parser.hpp"
#include "models/ptx/taint.hpp"

namespace simtlm::ptx {
namespace {

// Kernel k(u64 array, u32 n): %rd1 = the array parameter (used as the texture object too), %r1 = %tid.x,
// %rd4 = &array[tid], %r5 = n. `fetch` is the instruction under test, writing %r7 from the coordinate %f1
// that a[tid] holds; it runs only for tid < n; a branch on its result skips an add, and the result is stored
// back at a[tid] after both joins.
std::string fetch_kernel(const std::string& fetch) {
  return ".version 9.0\n.target sm_75\n.address_size 64\n"
         ".visible .entry k(\n.param .u64 k_param_0,\n.param .u32 k_param_1\n)\n{\n"
         ".reg .pred %p<4>;\n.reg .b32 %r<16>;\n.reg .f32 %f<4>;\n.reg .b64 %rd<16>;\n"
         "ld.param.u64 %rd1, [k_param_0];\n"
         "ld.param.u32 %r5, [k_param_1];\n"
         "cvta.to.global.u64 %rd2, %rd1;\n"
         "mov.u32 %r1, %tid.x;\n"
         "mul.wide.u32 %rd3, %r1, 4;\n"
         "add.s64 %rd4, %rd2, %rd3;\n"
         "mov.u32 %r7, 0;\n"
         "ld.global.f32 %f1, [%rd4];\n"  // the load site: the coordinate
         "setp.ge.u32 %p1, %r1, %r5;\n"
         "@%p1 bra DONE;\n" +  // the branch site: guards the fetch
         fetch +
         "\n"
         "DONE:\n"
         "setp.eq.u32 %p2, %r7, 0;\n"
         "@%p2 bra END;\n"  // a branch on the fetched value, guarding no vulnerable operation
         "add.u32 %r7, %r7, 1;\n"
         "END:\n"
         "st.global.u32 [%rd4], %r7;\n"
         "ret;\n}\n";
}

uint32_t pc_of(const Function& fn, Op op, Space space = Space::none) {
  for (uint32_t pc = 0; pc < fn.code.size(); ++pc) {
    if (fn.code[pc].op == op && (space == Space::none || fn.code[pc].space == space)) return pc;
  }
  ADD_FAILURE() << "no " << op_name(op);
  return kNoTarget;
}

const std::string kTexFetch = "tex.2d.v4.u32.f32 {%r7, %r8, %r9, %r10}, [%rd1, {%f1, %f1}];";
// The same value fetched with an ld whose address the coordinate decides: that one can fault.
const std::string kLoadFetch =
    "cvt.rzi.s32.f32 %r11, %f1;\nmul.wide.s32 %rd5, %r11, 4;\nadd.s64 %rd6, %rd2, %rd5;\n"
    "ld.global.u32 %r7, [%rd6];";

TEST(TextureAnalyses, ATexFetchIsNotVulnerableSoWhatFeedsItMayBeHerded) {
  const Module module = parse_ptx(fetch_kernel(kTexFetch), "tex.ptx");
  const Function& fn = module.functions.at(0);
  const HerdSafety safety = analyze_herd_safety(module, fn);
  const uint32_t coordinate = pc_of(fn, Op::ld, Space::global);
  const uint32_t guard = pc_of(fn, Op::bra);
  ASSERT_NE(safety.load_at(coordinate), nullptr);
  EXPECT_TRUE(safety.load_at(coordinate)->safe);
  EXPECT_TRUE(safety.load_at(coordinate)->reasons.empty());
  ASSERT_NE(safety.branch_at(guard), nullptr);
  EXPECT_TRUE(safety.branch_at(guard)->safe);
  EXPECT_EQ(safety.load_at(pc_of(fn, Op::tex)), nullptr);  // a tex is no data-herding site either
  for (const HerdSiteVerdict& v : safety.branches) EXPECT_TRUE(v.safe) << describe_verdict(v, module, fn);
}

TEST(TextureAnalyses, TheSameFetchThroughAnLdIsVulnerable) {
  const Module module = parse_ptx(fetch_kernel(kLoadFetch), "ld.ptx");
  const Function& fn = module.functions.at(0);
  const HerdSafety safety = analyze_herd_safety(module, fn);
  const uint32_t coordinate = pc_of(fn, Op::ld, Space::global);
  const uint32_t fetch = pc_of(fn, Op::cvt) + 3;
  ASSERT_EQ(fn.code.at(fetch).op, Op::ld);
  EXPECT_FALSE(safety.load_at(coordinate)->safe);
  EXPECT_EQ(safety.load_at(coordinate)->reasons,
            (std::vector<Vulnerability>{{VulnerableKind::load_address, fetch}}));
  EXPECT_FALSE(safety.branch_at(pc_of(fn, Op::bra))->safe);
}

TEST(TextureAnalyses, ABranchOnAFetchedTexelIsADataBranch) {
  const Module module = parse_ptx(fetch_kernel(kTexFetch), "tex.ptx");
  const Function& fn = module.functions.at(0);
  const TaintAnalysis taint(module, fn);
  uint32_t on_texel = kNoTarget;
  for (uint32_t pc = pc_of(fn, Op::tex); pc < fn.code.size(); ++pc) {
    if (fn.code[pc].op == Op::bra) {
      on_texel = pc;
      break;
    }
  }
  const BranchTaint& b = taint.at(on_texel);
  EXPECT_EQ(b.kind, BranchClass::kData);
  EXPECT_TRUE(b.sources & kFromData);
  // The lowest-pc load reaching it is the coordinate's ld, then the tex itself.
  EXPECT_EQ(b.data_load_pc, pc_of(fn, Op::ld, Space::global));
  const Module only_tex = parse_ptx(fetch_kernel("mov.f32 %f1, 0f3F800000;\n" + kTexFetch), "tex.ptx");
  const Function& tex_fn = only_tex.functions.at(0);
  const TaintAnalysis tex_taint(only_tex, tex_fn);
  const BranchTaint& t = tex_taint.at(pc_of(tex_fn, Op::tex) + 2);
  EXPECT_EQ(t.kind, BranchClass::kData);
  EXPECT_EQ(t.data_load_pc, pc_of(tex_fn, Op::tex));
  EXPECT_TRUE(t.sources & kFromParam);  // the texture object
}

}  // namespace
}  // namespace simtlm::ptx
