// hw::SimtStack (both disciplines), hw::SpillEngine and studies::StackRunner, down to the divergence-cost
// paper's exact integers on the single_loop and double_loop workloads.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "hw/simt_stack.hpp"
#include "hw/spill_engine.hpp"
#include "hw/ssy_points.hpp"
#include "models/launch/session.hpp"
#include "models/ptx/cfg.hpp"
#include "models/ptx/parser.hpp"
#include "studies/stack_runner.hpp"
#include "workloads/reference/reference.hpp"

namespace fs = std::filesystem;
using namespace simtlm;
using hw::BranchOutcome;
using hw::Discipline;
using hw::StackParams;

namespace {

StackParams params(Discipline d, hw::StackTiming t = hw::kepler_timing()) {
  StackParams p;
  p.discipline = d;
  p.timing = t;
  return p;
}

// An if-else: 0: @p bra 5; 1..3 else; 4: bra 8; 5..7 then; 8: join.
TEST(SimtStackToken, IfElseDiamond) {
  hw::SimtStack s(params(Discipline::token), 0);
  s.reset(0, 0xff);
  EXPECT_EQ(s.ssy(8).pushes, 1u);
  auto u = s.branch(BranchOutcome{0, 0xff, 0x0f, 5, 1, 8});
  EXPECT_TRUE(u.diverged);
  EXPECT_EQ(u.pushes, 1u);
  EXPECT_EQ(u.next_pc, 5u);
  EXPECT_EQ(u.mask, 0x0fu);
  EXPECT_EQ(s.depth(), 2u);
  s.advance(6);
  s.advance(7);
  u = s.advance(8);  // the then path reaches the join: the DIV token resumes the else lanes
  EXPECT_EQ(u.pops, 1u);
  EXPECT_EQ(u.next_pc, 1u);
  EXPECT_EQ(u.mask, 0xf0u);
  EXPECT_EQ(u.cycles, 32u);
  s.advance(2);
  s.advance(3);
  s.advance(4);
  u = s.branch(BranchOutcome{4, 0xf0, 0xf0, 8, 5, ptx::kNoTarget});
  EXPECT_FALSE(u.diverged);
  EXPECT_EQ(u.pops, 1u);  // the SYNC token restores the full mask past the carrier
  EXPECT_EQ(u.next_pc, 8u);
  EXPECT_EQ(u.mask, 0xffu);
  EXPECT_EQ(s.advance(9).pops, 0u);
  EXPECT_EQ(s.counters().pushes, 2u);
  EXPECT_EQ(s.counters().pops, 2u);
  EXPECT_EQ(s.counters().max_depth, 2u);
  EXPECT_EQ(s.counters().divergent_branches, 1u);
  EXPECT_EQ(s.counters().cycles, 64u);
}

// The paper's walk-through of listing 3 with n = 2: 0: @p bra 3 (entry test); 1: body; 2: @q bra 1; 3: join.
TEST(SimtStackToken, PaperLoopWalkThrough) {
  hw::SimtStack s(params(Discipline::token), 0);
  s.reset(0, ~0u);
  s.ssy(3);
  s.branch(BranchOutcome{0, ~0u, 0, 3, 1, 3});  // nobody skips the loop
  ptx::LaneMask live = ~0u;
  for (int i = 1; i <= 32; ++i) {
    s.advance(2);
    const ptx::LaneMask stay = i < 30 ? live : i == 30 ? 0x7fffffffu : i == 31 ? 0x3fffffffu : 0u;
    const auto u = s.branch(BranchOutcome{2, live, stay, 1, 3, 3});
    EXPECT_EQ(u.diverged, i == 30 || i == 31) << i;
    live = stay;
    if (i == 32) {
      EXPECT_EQ(u.pops, 3u);  // two DIV tokens at the carrier, then the SYNC token
      EXPECT_EQ(u.next_pc, 3u);
      EXPECT_EQ(u.mask, ~0u);
    }
  }
  EXPECT_EQ(s.counters().pushes, 3u);
  EXPECT_EQ(s.counters().max_depth, 3u);
}

TEST(SimtStackToken, DivergenceAroundExitPopsWhenLanesExit) {
  hw::SimtStack s(params(Discipline::token), 0);
  s.reset(0, 0xff);
  // 0: @p bra 2 (reconverges only at the exit); 1: ret; 2: ret.
  auto u = s.branch(BranchOutcome{0, 0xff, 0x03, 2, 1, ptx::kNoTarget});
  EXPECT_TRUE(u.diverged);
  u = s.exit(0x03, 3);
  EXPECT_EQ(u.pops, 1u);
  EXPECT_EQ(u.next_pc, 1u);
  EXPECT_EQ(u.mask, 0xfcu);
  u = s.exit(0xfc, 2);
  EXPECT_TRUE(u.done);
}

TEST(SimtStackToken, ExitInsideRegionDropsLanesFromSync) {
  hw::SimtStack s(params(Discipline::token), 0);
  s.reset(0, 0xff);
  s.ssy(6);
  s.branch(BranchOutcome{0, 0xff, 0x0f, 4, 1, 6});  // 4: @r ret inside the then path
  auto u = s.exit(0x03, 5);
  EXPECT_EQ(u.mask, 0x0cu);
  u = s.advance(6);  // then path joins: else lanes resume
  EXPECT_EQ(u.next_pc, 1u);
  EXPECT_EQ(u.mask, 0xf0u);
  u = s.advance(6);
  EXPECT_EQ(u.mask, 0xfcu);  // the SYNC token without the exited lanes
}

TEST(SimtStackPostdom, IfElseDiamond) {
  hw::SimtStack s(params(Discipline::postdom), 0);
  s.reset(0, 0xff);
  EXPECT_EQ(s.ssy(8).pushes, 0u);  // no SSY under postdom
  auto u = s.branch(BranchOutcome{0, 0xff, 0x0f, 5, 1, 8});
  EXPECT_TRUE(u.diverged);
  EXPECT_EQ(u.pushes, 2u);
  EXPECT_EQ(u.next_pc, 5u);
  EXPECT_EQ(s.depth(), 3u);
  u = s.advance(8);
  EXPECT_EQ(u.pops, 1u);
  EXPECT_EQ(u.next_pc, 1u);
  EXPECT_EQ(u.mask, 0xf0u);
  u = s.branch(BranchOutcome{4, 0xf0, 0xf0, 8, 5, ptx::kNoTarget});
  EXPECT_EQ(u.pops, 1u);
  EXPECT_EQ(u.next_pc, 8u);
  EXPECT_EQ(u.mask, 0xffu);
  EXPECT_EQ(s.depth(), 1u);
  EXPECT_EQ(s.counters().max_depth, 3u);
}

TEST(SimtStackPostdom, PathAlreadyAtJoinIsNotPushed) {
  hw::SimtStack s(params(Discipline::postdom), 0);
  s.reset(0, 0xff);
  // 0: @p bra 3 (if-then, taken lanes skip to the join); 1..2 then; 3 join.
  auto u = s.branch(BranchOutcome{0, 0xff, 0xf0, 3, 1, 3});
  EXPECT_EQ(u.pushes, 1u);
  EXPECT_EQ(u.next_pc, 1u);
  EXPECT_EQ(u.mask, 0x0fu);
  EXPECT_EQ(s.depth(), 2u);
  s.advance(2);
  u = s.advance(3);
  EXPECT_EQ(u.pops, 1u);
  EXPECT_EQ(u.mask, 0xffu);
}

TEST(SimtStackSpill, RoundTripRestoresExactEntries) {
  StackParams p = params(Discipline::token);
  p.spill_base = 0x10000;
  p.region_bytes = 1024;
  hw::SpillEngine e(p, 3);
  const uint64_t base = 0x10000 + 3 * 1024;
  EXPECT_EQ(e.region_base(), base);
  uint32_t spills = 0;
  for (uint32_t i = 0; i < 40; ++i) {
    spills += e.push(hw::StackEntry{i % 2 ? hw::EntryKind::div : hw::EntryKind::sync, 100 + i, 200 + i,
                                    0x1234u * (i + 1)});
  }
  // 16 fit; then every 4th push spills 4: at pushes 17, 21, ..., 37.
  EXPECT_EQ(spills, 6u);
  EXPECT_EQ(e.onchip_size(), 16u);
  EXPECT_EQ(e.spilled_size(), 24u);
  auto req = e.take_requests();
  ASSERT_EQ(req.size(), 6u);
  for (uint32_t k = 0; k < 6; ++k) EXPECT_EQ(req[k], (hw::MemRequest{base + k * 32, 32, true}));
  uint32_t fills = 0;
  for (uint32_t i = 40; i-- > 0;) {
    hw::StackEntry out;
    fills += e.pop(&out);
    EXPECT_EQ(out, (hw::StackEntry{i % 2 ? hw::EntryKind::div : hw::EntryKind::sync, 100 + i, 200 + i,
                                   0x1234u * (i + 1)}));
  }
  EXPECT_EQ(fills, 6u);
  EXPECT_TRUE(e.empty());
  req = e.take_requests();
  ASSERT_EQ(req.size(), 6u);
  for (uint32_t k = 0; k < 6; ++k) EXPECT_EQ(req[k], (hw::MemRequest{base + (5 - k) * 32, 32, false}));
}

TEST(SimtStackSpill, RejectsChunkLargerThanOnChip) {
  StackParams p;
  p.chunk_entries = 17;
  EXPECT_THROW(hw::SpillEngine(p, 0), std::invalid_argument);
}

// A do-while loop has no entry test: its SSY must sit before the loop, not re-fire on the back edge.
TEST(SimtStackSsy, DoWhileLoopFiresOnEntryOnly) {
  ptx::Function fn;
  for (int i = 0; i < 4; ++i) fn.code.emplace_back();
  fn.code[0].op = ptx::Op::add;
  fn.code[1].op = ptx::Op::add;  // loop header and body
  fn.code[2].op = ptx::Op::bra;  // @%p0 bra 1
  fn.code[2].guard = 0;
  fn.code[2].target = 1;
  fn.code[3].op = ptx::Op::ret;
  const ptx::Cfg cfg(fn);
  const hw::SsyMap ssy(fn, cfg);
  EXPECT_EQ(ssy.size(), 1u);
  EXPECT_EQ(ssy.fire(1, 0), std::vector<uint32_t>{3});
  EXPECT_TRUE(ssy.fire(1, 2).empty());
  EXPECT_TRUE(ssy.fire(2, 1).empty());
}

TEST(SimtStackSsy, PaperWorkloadsMatchTheSassListings) {
  const fs::path dir = fs::path(SIMTLM_SOURCE_DIR) / "workloads";
  {
    std::string error;
    const ptx::Module m = ptx::load_ptx_file((dir / "single_loop" / "single_loop.ptx").string());
    const ptx::Function& fn = *m.find_entry("single_loop", &error);
    const ptx::Cfg cfg(fn);
    const hw::SsyMap ssy(fn, cfg);
    // Listing 3: one SSY before the entry test, joining after the loop (the store).
    ASSERT_EQ(ssy.size(), 1u);
    ASSERT_EQ(ssy.points_at(0).size(), 1u);
    EXPECT_EQ(fn.code[ssy.points_at(0)[0].reconvergence_pc].op, ptx::Op::st);
  }
  {
    std::string error;
    const ptx::Module m = ptx::load_ptx_file((dir / "double_loop" / "double_loop.ptx").string());
    const ptx::Function& fn = *m.find_entry("double_loop", &error);
    const ptx::Cfg cfg(fn);
    const hw::SsyMap ssy(fn, cfg);
    // Listing 4: the outer SSY before the outer entry test, the inner one at the outer loop header.
    ASSERT_EQ(ssy.size(), 2u);
    const uint32_t header = fn.labels.at("$L__BB0_2");
    ASSERT_EQ(ssy.points_at(0).size(), 1u);
    ASSERT_EQ(ssy.points_at(header).size(), 1u);
    EXPECT_EQ(ssy.points_at(0)[0].reconvergence_pc, fn.labels.at("$L__BB0_6"));
    EXPECT_EQ(ssy.points_at(header)[0].reconvergence_pc, fn.labels.at("$L__BB0_5"));
    // Fired on entry from the prologue and again from the outer back edge (every outer iteration).
    EXPECT_EQ(ssy.fire(header, header - 1).size(), 1u);
    EXPECT_EQ(ssy.fire(header, fn.labels.at("$L__BB0_6") - 1).size(), 1u);
  }
}

// ---- The paper's workloads through StackRunner, outputs checked against the functional runner. ----

launch::Launch workload(const std::string& name, int n) {
  launch::Launch l = launch::load_launch(fs::path(SIMTLM_SOURCE_DIR) / "workloads" / name / (name + ".yaml"));
  for (size_t i = 1; i < l.params.size(); ++i) l.params[i].integer = n;
  return l;
}

studies::StackRunResult run_and_check(const launch::Launch& l, const StackParams& p) {
  studies::StackRunResult r = studies::StackRunner(p).run(l);
  launch::SessionOptions o;
  o.find_reference = workloads::find_reference;
  launch::Session session(l, o);
  const launch::SessionResult f = session.run();
  EXPECT_TRUE(f.ok());
  EXPECT_EQ(r.buffers, f.buffers);
  return r;
}

uint64_t expected_chunks(uint64_t max_depth) {
  return max_depth > 16 ? (max_depth - 16 + 3) / 4 : 0;
}

TEST(SimtStackPaper, SingleLoop) {
  for (int n = 0; n < 32; ++n) {
    const auto l = workload("single_loop", n);
    const auto k = run_and_check(l, params(Discipline::token, hw::kepler_timing()));
    const auto m = run_and_check(l, params(Discipline::token, hw::maxwell_timing()));
    const uint64_t d = n + 1;
    EXPECT_EQ(k.stack.pushes, d) << n;
    EXPECT_EQ(k.stack.pops, d) << n;
    EXPECT_EQ(k.stack.max_depth, d) << n;
    // The stack only grows, then unwinds once: one spill per 4 entries beyond 16, each filled back once.
    EXPECT_EQ(k.stack.spills, expected_chunks(d)) << n;
    // The PTX has no carrier instruction: a pop costs cycles, not an instruction (lane 0 runs 32 trips).
    EXPECT_EQ(k.warp_instructions, 150u) << n;
    EXPECT_EQ(k.stack.fills, k.stack.spills) << n;
    // One more divergence costs one pop (the paper's per-divergence fit) on top of one instruction.
    const uint64_t chunks = expected_chunks(d);
    EXPECT_EQ(k.cycles, k.warp_instructions + 32 * d + 84 * chunks) << n;
    EXPECT_EQ(m.cycles, m.warp_instructions + 26 * d + 176 * chunks) << n;
    std::printf(
        "single_loop n=%2d pushes=%2lu depth=%2lu spills=%lu fills=%lu instr=%lu kepler=%lu maxwell=%lu\n", n,
        (unsigned long)k.stack.pushes, (unsigned long)k.stack.max_depth, (unsigned long)k.stack.spills,
        (unsigned long)k.stack.fills, (unsigned long)k.warp_instructions, (unsigned long)k.cycles,
        (unsigned long)m.cycles);
  }
}

TEST(SimtStackPaper, DoubleLoop) {
  for (int n = 0; n < 32; ++n) {
    const auto l = workload("double_loop", n);
    const auto k = run_and_check(l, params(Discipline::token, hw::kepler_timing()));
    const auto m = run_and_check(l, params(Discipline::token, hw::maxwell_timing()));
    EXPECT_EQ(k.stack.pushes, uint64_t(n * (65 - n) / 2 + 33)) << n;
    EXPECT_EQ(k.stack.max_depth, uint64_t(n + 2)) << n;
    EXPECT_EQ(k.stack.pops, k.stack.pushes) << n;
    // Derived from the spill model (docs/simt-stack.md): with k chunks of overflow, each of the 32 - n
    // outer iterations before any lane leaves the outer loop spills and fills k chunks; afterwards the
    // outer DIV tokens pile up below the inner region and the on-chip/memory boundary shifts, adding
    // k(2k + 1) more.
    const uint64_t k_chunks = expected_chunks(n + 2);
    EXPECT_EQ(k.stack.spills, k_chunks * (32 - n) + k_chunks * (2 * k_chunks + 1)) << n;
    EXPECT_EQ(k.stack.fills, k.stack.spills) << n;
    EXPECT_EQ(k.cycles, k.warp_instructions + 32 * k.stack.pops + 84 * k.stack.spills) << n;
    EXPECT_EQ(m.cycles, m.warp_instructions + 26 * m.stack.pops + 176 * m.stack.spills) << n;
    EXPECT_EQ(k.warp_instructions, 4347u) << n;
    std::printf(
        "double_loop n=%2d pushes=%3lu depth=%2lu spills=%2lu fills=%2lu instr=%lu kepler=%lu maxwell=%lu\n",
        n, (unsigned long)k.stack.pushes, (unsigned long)k.stack.max_depth, (unsigned long)k.stack.spills,
        (unsigned long)k.stack.fills, (unsigned long)k.warp_instructions, (unsigned long)k.cycles,
        (unsigned long)m.cycles);
  }
}

TEST(SimtStackPaper, PostdomOutputsMatchToo) {
  for (int n : {0, 5, 17, 31}) {
    run_and_check(workload("single_loop", n), params(Discipline::postdom));
    run_and_check(workload("double_loop", n), params(Discipline::postdom));
  }
}

}  // namespace
