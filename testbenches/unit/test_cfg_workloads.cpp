// The immediate post-dominators of every conditional branch of the workload suite, checked against a
// brute-force oracle: q post-dominates b when no path from b reaches the virtual exit without passing q.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "models/ptx/cfg.hpp"
#include "models/ptx/parser.hpp"

namespace fs = std::filesystem;
using namespace simtlm::ptx;

namespace {

bool post_dominates(const Cfg& cfg, uint32_t q, uint32_t b) {
  if (q == b) return true;
  std::vector<bool> seen(cfg.blocks().size(), false);
  std::vector<uint32_t> work{b};
  seen[b] = true;
  while (!work.empty()) {
    const uint32_t n = work.back();
    work.pop_back();
    if (n == cfg.virtual_exit()) return false;
    for (uint32_t s : cfg.blocks()[n].succ) {
      if (s == q || seen[s]) continue;
      seen[s] = true;
      work.push_back(s);
    }
  }
  return true;
}

bool reaches_exit(const Cfg& cfg, uint32_t b) {
  return !post_dominates(cfg, uint32_t(-2), b);
}

TEST(CfgOnWorkloads, ReconvergencePointIsTheImmediatePostDominator) {
  int kernels = 0, branches = 0;
  for (const auto& dir : fs::directory_iterator(fs::path(SIMTLM_SOURCE_DIR) / "workloads")) {
    const fs::path ptx = dir.path() / (dir.path().filename().string() + ".ptx");
    if (!fs::exists(ptx)) continue;
    const Module module = load_ptx_file(ptx.string());
    for (const Function& fn : module.functions) {
      if (!fn.is_entry) continue;
      ++kernels;
      const Cfg cfg(fn);
      const uint32_t nblocks = uint32_t(cfg.blocks().size());
      for (uint32_t pc = 0; pc < fn.code.size(); ++pc) {
        if (!cfg.is_conditional_branch(pc)) continue;
        const uint32_t b = cfg.block_of(pc);
        if (!reaches_exit(cfg, b)) continue;  // inside an endless loop: no post-dominator to check
        ++branches;
        const uint32_t ipdom = cfg.ipdom_block(b);
        ASSERT_NE(ipdom, b) << fn.name << " pc " << pc;
        ASSERT_TRUE(post_dominates(cfg, ipdom, b)) << fn.name << " pc " << pc;
        // Immediate: every other strict post-dominator of b also post-dominates ipdom.
        for (uint32_t q = 0; q < nblocks; ++q) {
          if (q == b || q == ipdom || !post_dominates(cfg, q, b)) continue;
          EXPECT_TRUE(post_dominates(cfg, q, ipdom)) << fn.name << " pc " << pc << " block " << q;
        }
        const uint32_t rpc = cfg.reconvergence_pc(pc);
        if (ipdom == cfg.virtual_exit()) {
          EXPECT_EQ(rpc, kNoTarget);
        } else {
          EXPECT_EQ(rpc, cfg.blocks()[ipdom].first);
        }
      }
    }
  }
  EXPECT_EQ(kernels, 57);
  EXPECT_GT(branches, 40);
}

}  // namespace
