// Which branches and loads a herding spec names (hw/herding/herd_plan.hpp), on tiny_herd.ptx: sites by PC,
// by CUDA FILE:LINE and by a path suffix; sites naming nothing; unsafe sites refused with the safety
// analysis's reason, accepted when forced and skipped by `all`; the kernels: filter.
#include <gtest/gtest.h>

#include <algorithm>

#include "hw/herding/herd_plan.hpp"
#include "models/ptx/herd_safety.hpp"
#include "testbenches/unit/herding_fixture.hpp"

namespace simtlm::herding_test {
namespace {

using launch::HerdingSpec;
using launch::parse_herd_site;

std::vector<uint32_t> set_pcs(const std::vector<uint8_t>& per_pc) {
  std::vector<uint32_t> pcs;
  for (uint32_t pc = 0; pc < per_pc.size(); ++pc) {
    if (per_pc[pc]) pcs.push_back(pc);
  }
  return pcs;
}

HerdingSpec branches(std::vector<std::string> sites) {
  HerdingSpec spec;
  for (const std::string& s : sites) spec.branches.sites.push_back(parse_herd_site(s));
  return spec;
}

std::string check_error(const HerdingSpec& spec, const TinyKernel& tiny,
                        const std::vector<std::string>& buffers = {"data", "out"}) {
  try {
    hw::check_sites(spec, tiny.module(), {&tiny.kernel()}, buffers);
  } catch (const hw::HerdPlanError& e) {
    return e.what();
  }
  return "(no error)";
}

class HerdPlan : public ::testing::Test {
 protected:
  TinyKernel tiny;
  std::string unsafe_reason() const {
    const ptx::HerdSafety safety = ptx::analyze_herd_safety(tiny.module(), tiny.kernel());
    return ptx::describe_verdict(*safety.branch_at(kBoundsPc), tiny.module(), tiny.kernel());
  }
};

TEST_F(HerdPlan, TheAnalysisCallsTheDataBranchSafeAndTheBoundsCheckUnsafe) {
  const ptx::HerdSafety safety = ptx::analyze_herd_safety(tiny.module(), tiny.kernel());
  ASSERT_NE(safety.branch_at(kDataBranchPc), nullptr);
  ASSERT_NE(safety.branch_at(kBoundsPc), nullptr);
  EXPECT_TRUE(safety.branch_at(kDataBranchPc)->safe);
  EXPECT_FALSE(safety.branch_at(kBoundsPc)->safe);
  EXPECT_TRUE(safety.load_at(kFirstLoadPc)->safe);
  EXPECT_TRUE(safety.load_at(kSecondLoadPc)->safe);
}

TEST_F(HerdPlan, ASiteByPcByCudaLineOrByPathSuffixResolves) {
  for (const char* site : {"11", "tiny_herd.cu:7", "src/tiny_herd.cu:7", "/home/dev/src/tiny_herd.cu:7"}) {
    const HerdingSpec spec = branches({site});
    EXPECT_EQ(check_error(spec, tiny), "(no error)") << site;
    const hw::KernelHerdPlan plan = hw::plan_kernel(spec, tiny.module(), tiny.kernel());
    EXPECT_EQ(set_pcs(plan.branch), std::vector<uint32_t>{kDataBranchPc}) << site;
    EXPECT_TRUE(set_pcs(plan.load).empty()) << site;
    EXPECT_TRUE(plan.herds_anything());
  }
  // A load site on a CUDA line takes every global load of the line.
  HerdingSpec loads;
  loads.loads.sites = {parse_herd_site("tiny_herd.cu:6")};
  EXPECT_EQ(check_error(loads, tiny), "(no error)");
  EXPECT_EQ(set_pcs(hw::plan_kernel(loads, tiny.module(), tiny.kernel()).load),
            (std::vector<uint32_t>{kFirstLoadPc, kSecondLoadPc}));
}

TEST_F(HerdPlan, ASiteNamingNoBranchIsRefusedByName) {
  EXPECT_EQ(check_error(branches({"9999"}), tiny),
            "herding site 9999 names no conditional branch of kernel tiny_herd");
  EXPECT_EQ(check_error(branches({"12"}), tiny),
            "herding site 12 names no conditional branch of kernel tiny_herd");
  // A suffix must start at a '/'; another line of the file names no branch.
  EXPECT_EQ(check_error(branches({"herd.cu:7"}), tiny),
            "herding site herd.cu:7 names no conditional branch of kernel tiny_herd");
  EXPECT_EQ(check_error(branches({"tiny_herd.cu:8"}), tiny),
            "herding site tiny_herd.cu:8 names no conditional branch of kernel tiny_herd");
  HerdingSpec loads;
  loads.loads.sites = {parse_herd_site("11")};
  EXPECT_EQ(check_error(loads, tiny), "herding site 11 names no global or generic load of kernel tiny_herd");
  HerdingSpec buffers;
  buffers.buffers = {"image"};
  EXPECT_EQ(check_error(buffers, tiny), "herding names buffer image, which the launch file does not declare");
  HerdingSpec kernels = branches({"11"});
  kernels.kernels = {"sobel"};
  EXPECT_EQ(check_error(kernels, tiny),
            "herding site 11 names no conditional branch of kernel tiny_herd");  // filtered out first
  kernels.branches.sites.clear();
  kernels.branches.all = true;
  EXPECT_EQ(check_error(kernels, tiny), "herding names kernel sobel, which the launch does not run");
}

TEST_F(HerdPlan, AnUnsafeExplicitSiteIsRefusedWithTheAnalysisReason) {
  const std::string reason = unsafe_reason();
  EXPECT_EQ(reason.rfind("unsafe", 0), 0u) << reason;
  for (const char* site : {"14", "tiny_herd.cu:9"}) {
    try {
      hw::plan_kernel(branches({site}), tiny.module(), tiny.kernel());
      ADD_FAILURE() << site << " was accepted";
    } catch (const hw::HerdPlanError& e) {
      EXPECT_EQ(
          std::string(e.what()),
          "branch PC 14 (PTX line 38, /home/dev/src/tiny_herd.cu:9) of kernel tiny_herd is unsafe to "
          "herd under the strict rule (give --force-unsafe or force_unsafe: true to herd it anyway):\n  " +
              reason);
    }
  }
}

TEST_F(HerdPlan, TheRelaxedRuleStillRefusesTheBoundsCheck) {
  HerdingSpec spec = branches({"14"});
  spec.safety = ptx::HerdSafetyRule::relaxed;
  try {
    hw::plan_kernel(spec, tiny.module(), tiny.kernel());
    ADD_FAILURE() << "the bounds check was accepted under the relaxed rule";
  } catch (const hw::HerdPlanError& e) {
    EXPECT_NE(std::string(e.what()).find("is unsafe to herd under the relaxed rule (give"), std::string::npos)
        << e.what();
  }
  spec.branches = {};
  spec.branches.all = true;
  EXPECT_EQ(set_pcs(hw::plan_kernel(spec, tiny.module(), tiny.kernel()).branch),
            std::vector<uint32_t>{kDataBranchPc});
}

TEST_F(HerdPlan, ForceUnsafeAcceptsTheUnsafeSite) {
  HerdingSpec spec = branches({"14"});
  spec.force_unsafe = true;
  const hw::KernelHerdPlan plan = hw::plan_kernel(spec, tiny.module(), tiny.kernel());
  EXPECT_EQ(set_pcs(plan.branch), std::vector<uint32_t>{kBoundsPc});
  spec.branches = {};
  spec.branches.all = true;
  EXPECT_EQ(set_pcs(hw::plan_kernel(spec, tiny.module(), tiny.kernel()).branch),
            (std::vector<uint32_t>{kDataBranchPc, kBoundsPc}));
}

TEST_F(HerdPlan, AllSkipsUnsafeSitesAndListsThem) {
  HerdingSpec spec;
  spec.branches.all = true;
  spec.loads.all = true;
  const hw::KernelHerdPlan plan = hw::plan_kernel(spec, tiny.module(), tiny.kernel());
  EXPECT_EQ(set_pcs(plan.branch), std::vector<uint32_t>{kDataBranchPc});
  EXPECT_EQ(set_pcs(plan.load), (std::vector<uint32_t>{kFirstLoadPc, kSecondLoadPc}));
  EXPECT_EQ(set_pcs(plan.load_safe), (std::vector<uint32_t>{kFirstLoadPc, kSecondLoadPc}));
  EXPECT_FALSE(plan.by_buffer);
  ASSERT_EQ(plan.skipped.size(), 1u);
  EXPECT_EQ(plan.skipped[0], "branch PC 14 (PTX line 38, /home/dev/src/tiny_herd.cu:9): " + unsafe_reason());
}

TEST_F(HerdPlan, TheKernelsFilterLeavesOtherKernelsUnherded) {
  HerdingSpec spec = branches({"11"});
  spec.kernels = {"tiny_herd"};
  EXPECT_EQ(set_pcs(hw::plan_kernel(spec, tiny.module(), tiny.kernel()).branch),
            std::vector<uint32_t>{kDataBranchPc});
  spec.kernels = {"another"};
  const hw::KernelHerdPlan plan = hw::plan_kernel(spec, tiny.module(), tiny.kernel());
  EXPECT_FALSE(plan.herds_anything());
  EXPECT_EQ(plan.branch.size(), tiny.kernel().code.size());
}

TEST_F(HerdPlan, BufferHerdingMarksTheSafeGlobalLoads) {
  HerdingSpec spec;
  spec.buffers = {"data"};
  const hw::KernelHerdPlan plan = hw::plan_kernel(spec, tiny.module(), tiny.kernel());
  EXPECT_TRUE(plan.by_buffer);
  EXPECT_TRUE(set_pcs(plan.load).empty());
  EXPECT_EQ(set_pcs(plan.load_safe), (std::vector<uint32_t>{kFirstLoadPc, kSecondLoadPc}));
  EXPECT_TRUE(plan.herds_anything());
}

}  // namespace
}  // namespace simtlm::herding_test
