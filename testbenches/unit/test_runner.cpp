// The reconvergence stack alone, then the functional runner end to end on hand-built IR through the executor.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "models/ptx/cfg.hpp"
#include "models/ptx/parser.hpp"
#include "models/ptx/runner.hpp"
#include "models/ptx/simt_stack.hpp"

namespace simtlm::ptx {
namespace {

// ---------------------------------------------------------------------------------------------------------
// SimtStack

TEST(SimtStack, UniformBranchesOnlyMoveThePc) {
  SimtStack s;
  s.reset(0, 0xffffffffu);
  EXPECT_FALSE(s.branch(3, 10, 0xffffffffu, 20));
  EXPECT_EQ(s.top().pc, 10u);
  EXPECT_FALSE(s.branch(10, 2, 0, 20));
  EXPECT_EQ(s.top().pc, 11u);
  EXPECT_EQ(s.depth(), 1u);
}

TEST(SimtStack, DivergenceRunsTheTakenPathFirstAndReconverges) {
  SimtStack s;
  s.reset(0, 0xffffffffu);
  ASSERT_TRUE(s.branch(2, 5, 0x0000ffffu, 6));
  ASSERT_EQ(s.depth(), 3u);
  EXPECT_EQ(s.entries()[0].pc, 6u);  // the parent waits at the reconvergence PC
  EXPECT_EQ(s.entries()[1].pc, 3u);  // fall-through path
  EXPECT_EQ(s.entries()[1].mask, 0xffff0000u);
  EXPECT_EQ(s.top().pc, 5u);  // taken path on top
  EXPECT_EQ(s.top().mask, 0x0000ffffu);
  EXPECT_EQ(s.top().reconvergence_pc, 6u);
  s.top().pc = 6;  // the taken path reaches the join
  ASSERT_TRUE(s.settle());
  EXPECT_EQ(s.top().pc, 3u);
  s.top().pc = 6;
  ASSERT_TRUE(s.settle());
  EXPECT_EQ(s.depth(), 1u);
  EXPECT_EQ(s.top().pc, 6u);
  EXPECT_EQ(s.top().mask, 0xffffffffu);
}

TEST(SimtStack, APathAlreadyAtTheReconvergencePcIsNotPushed) {
  SimtStack s;
  s.reset(0, 0xfu);
  ASSERT_TRUE(s.branch(0, 4, 0x3u, 4));  // if without else: the taken lanes skip to the join
  ASSERT_EQ(s.depth(), 2u);
  EXPECT_EQ(s.top().pc, 1u);
  EXPECT_EQ(s.top().mask, 0xcu);
}

TEST(SimtStack, BranchToTheNextInstructionNeverDiverges) {
  SimtStack s;
  s.reset(0, 0xfu);
  EXPECT_FALSE(s.branch(0, 1, 0x3u, 7));
  EXPECT_EQ(s.top().pc, 1u);
  EXPECT_EQ(s.depth(), 1u);
}

TEST(SimtStack, DivergentLoopDoesNotGrowTheStack) {
  SimtStack s;
  s.reset(0, 0xffu);
  // Loop exit branch at PC 3 to 6 (= reconvergence PC); lanes leave one per iteration.
  LaneMask in_loop = 0xff;
  for (unsigned i = 0; i < 7; ++i) {
    const LaneMask leaving = LaneMask{1} << i;
    ASSERT_TRUE(s.branch(3, 6, leaving, 6));
    in_loop &= ~leaving;
    EXPECT_EQ(s.depth(), 2u);
    EXPECT_EQ(s.top().mask, in_loop);
    s.top().pc = 3;  // back around the loop
  }
  EXPECT_FALSE(s.branch(3, 6, 0x80u, 6));  // the last lane leaves: uniform
  ASSERT_TRUE(s.settle());
  EXPECT_EQ(s.depth(), 1u);
  EXPECT_EQ(s.top().pc, 6u);
  EXPECT_EQ(s.top().mask, 0xffu);
}

TEST(SimtStack, ExitRemovesLanesFromEveryEntry) {
  SimtStack s;
  s.reset(0, 0xfu);
  ASSERT_TRUE(s.branch(1, 8, 0x3u, kNoTarget));  // reconverges only at the virtual exit
  EXPECT_EQ(s.entries()[0].pc, kNoTarget);
  s.exit(8, 0x1u);  // one lane of the taken path exits, the other goes on
  EXPECT_EQ(s.top().pc, 9u);
  EXPECT_EQ(s.top().mask, 0x2u);
  EXPECT_EQ(s.entries()[0].mask, 0xeu);
  s.exit(9, 0x2u);  // the rest of the taken path: its entry is popped
  ASSERT_TRUE(s.settle());
  EXPECT_EQ(s.depth(), 2u);
  EXPECT_EQ(s.top().pc, 2u);
  EXPECT_EQ(s.top().mask, 0xcu);
  s.exit(2, 0xcu);
  EXPECT_FALSE(s.settle());
  EXPECT_EQ(s.live_lanes(), 0u);
}

TEST(SimtStack, NestedDivergence) {
  SimtStack s;
  s.reset(0, 0xffu);
  ASSERT_TRUE(s.branch(0, 10, 0x0fu, 20));   // outer if/else joining at 20
  ASSERT_TRUE(s.branch(10, 15, 0x03u, 18));  // inner if/else in the taken path joining at 18
  EXPECT_EQ(s.depth(), 5u);
  EXPECT_EQ(s.top().mask, 0x03u);
  EXPECT_EQ(s.entries()[2].pc, 18u);
  EXPECT_EQ(s.entries()[2].mask, 0x0fu);
  EXPECT_EQ(s.live_lanes(), 0xffu);
}

// ---------------------------------------------------------------------------------------------------------
// Runner end to end on hand-built IR.

Operand reg(uint32_t r) {
  Operand o;
  o.kind = OperandKind::reg;
  o.reg = r;
  return o;
}
Operand imm(uint64_t v) {
  Operand o;
  o.kind = OperandKind::imm;
  o.imm = v;
  return o;
}
Operand special(SpecialReg s) {
  Operand o;
  o.kind = OperandKind::special;
  o.sreg = s;
  return o;
}
Operand mem(uint32_t r, uint64_t offset) {
  Operand o;
  o.kind = OperandKind::mem;
  o.reg = r;
  o.imm = offset;
  return o;
}

// Registers: %r0..%r7 are u32 (0..7), %rd0..%rd3 u64 (8..11), %p0..%p3 pred (12..15).
constexpr uint32_t kR = 0, kRd = 8, kP = 12;

class KernelBuilder {
 public:
  KernelBuilder() {
    fn_.name = "k";
    fn_.is_entry = true;
    for (int i = 0; i < 8; ++i) fn_.regs.push_back({"%r" + std::to_string(i), Type::u32});
    for (int i = 0; i < 4; ++i) fn_.regs.push_back({"%rd" + std::to_string(i), Type::u64});
    for (int i = 0; i < 4; ++i) fn_.regs.push_back({"%p" + std::to_string(i), Type::pred});
  }
  KernelBuilder& label(const std::string& name) {
    fn_.labels[name] = uint32_t(fn_.code.size());
    return *this;
  }
  KernelBuilder& guard(uint32_t p, bool neg = false) {
    guard_ = p;
    guard_neg_ = neg;
    return *this;
  }
  KernelBuilder& op(Op o, Type t, std::vector<Operand> dst, std::vector<Operand> src, Sub sub = Sub::none) {
    Instr in;
    in.op = o;
    in.type = t;
    in.sub = sub;
    in.ndst = uint8_t(dst.size());
    in.nsrc = uint8_t(src.size());
    for (size_t i = 0; i < dst.size(); ++i) in.dst[i] = dst[i];
    for (size_t i = 0; i < src.size(); ++i) in.src[i] = src[i];
    in.guard = guard_;
    in.guard_neg = guard_neg_;
    in.line = uint32_t(fn_.code.size() + 100);
    guard_ = kNoReg;
    guard_neg_ = false;
    fn_.code.push_back(in);
    return *this;
  }
  KernelBuilder& mov(uint32_t d, Operand s, Type t = Type::u32) { return op(Op::mov, t, {reg(d)}, {s}); }
  KernelBuilder& add(uint32_t d, Operand a, Operand b, Type t = Type::u32) {
    return op(Op::add, t, {reg(d)}, {a, b});
  }
  KernelBuilder& setp(Cmp cmp, uint32_t p, Operand a, Operand b) {
    op(Op::setp, Type::u32, {reg(p)}, {a, b});
    fn_.code.back().cmp = cmp;
    return *this;
  }
  KernelBuilder& bra(const std::string& target) {
    op(Op::bra, Type::none, {}, {});
    pending_.emplace_back(uint32_t(fn_.code.size() - 1), target);
    return *this;
  }
  KernelBuilder& bra_if(uint32_t p, const std::string& target) { return guard(p).bra(target); }
  KernelBuilder& ret() { return op(Op::ret, Type::none, {}, {}); }
  KernelBuilder& ret_if(uint32_t p) { return guard(p).ret(); }
  KernelBuilder& bar_sync(uint32_t id) { return op(Op::bar, Type::none, {}, {imm(id)}, Sub::bar_sync); }
  KernelBuilder& bar_sync(uint32_t id, uint32_t count) {
    return op(Op::bar, Type::none, {}, {imm(id), imm(count)}, Sub::bar_sync);
  }
  // out[tid.x] = %r{value}: uses %rd0 and %rd1.
  KernelBuilder& store_per_thread(uint64_t base, uint32_t value) {
    mov(kRd + 0, special(SpecialReg::tid_x), Type::u64);
    op(Op::shl, Type::b64, {reg(kRd + 1)}, {reg(kRd + 0), imm(2)});
    op(Op::st, Type::u32, {}, {mem(kRd + 1, base), reg(value)});
    fn_.code.back().space = Space::global;
    return *this;
  }
  Function build() {
    for (auto& [pc, name] : pending_) fn_.code[pc].target = fn_.labels.at(name);
    return fn_;
  }

 private:
  Function fn_;
  uint32_t guard_ = kNoReg;
  bool guard_neg_ = false;
  std::vector<std::pair<uint32_t, std::string>> pending_;
};

struct Launched {
  Module module;
  GlobalMemory global;
  LaunchContext launch;
  uint64_t out = 0;

  Launched(Function fn, Dim3 grid, Dim3 block, uint64_t out_words = 0) {
    module.functions.push_back(std::move(fn));
    launch.module = &module;
    launch.kernel = &module.functions[0];
    launch.grid = grid;
    launch.block = block;
    launch.global = &global;
    if (out_words) out = global.allocate(out_words * 4, 256, "out");
  }
  RunStats run(uint64_t budget = RunOptions{}.instruction_budget) {
    Cfg cfg(*launch.kernel);
    FunctionalRunner runner(launch, cfg, RunOptions{budget});
    return runner.run();
  }
  std::vector<uint32_t> words(size_t n) const {
    std::vector<uint32_t> v(n);
    global.read(out, v.data(), n * 4);
    return v;
  }
};

std::string run_error(Launched& l, uint64_t budget = RunOptions{}.instruction_budget) {
  try {
    l.run(budget);
  } catch (const KernelError& e) {
    return e.what();
  }
  return "";
}

// Output base used by the hand-built kernels: the first allocation of a fresh GlobalMemory.
uint64_t first_allocation() {
  GlobalMemory g;
  return g.allocate(4, 256, "probe");
}

Function divergent_if_else() {
  const uint64_t out = first_allocation();
  return KernelBuilder()
      .mov(kR + 0, special(SpecialReg::tid_x))      // 0
      .setp(Cmp::lo, kP + 1, reg(kR + 0), imm(16))  // 1
      .bra_if(kP + 1, "ELSE")                       // 2
      .add(kR + 2, reg(kR + 0), imm(1000))          // 3  tid >= 16
      .bra("JOIN")                                  // 4
      .label("ELSE")                                //
      .add(kR + 2, reg(kR + 0), imm(2000))          // 5  tid < 16 (taken)
      .label("JOIN")                                //
      .add(kR + 3, reg(kR + 2), reg(kR + 2))        // 6
      .store_per_thread(out, kR + 3)                // 7, 8, 9
      .ret()                                        // 10
      .build();
}

TEST(Runner, DivergentIfElse) {
  Launched l(divergent_if_else(), Dim3{1, 1, 1}, Dim3{32, 1, 1}, 32);
  RunStats s = l.run();
  std::vector<uint32_t> got = l.words(32);
  for (uint32_t t = 0; t < 32; ++t) EXPECT_EQ(got[t], 2 * (t + (t < 16 ? 2000 : 1000))) << t;
  // 0-2 full warp; 5 (taken, 16 lanes); 3-4 (16 lanes); 6-10 full warp.
  EXPECT_EQ(s.warp_instructions, 3u + 1u + 2u + 5u);
  EXPECT_EQ(s.thread_instructions, 3u * 32 + 16 + 2 * 16 + 5 * 32);
  EXPECT_EQ(s.active_lane_sum, s.thread_instructions);
  EXPECT_EQ(s.branches, 1u);  // the unguarded bra at 4 is not conditional
  EXPECT_EQ(s.divergent_branches, 1u);
  EXPECT_EQ(s.max_stack_depth, 3u);
  ASSERT_EQ(s.per_branch.size(), 1u);
  EXPECT_EQ(s.per_branch.at(2).executed, 1u);
  EXPECT_EQ(s.per_branch.at(2).divergent, 1u);
  EXPECT_EQ(s.ctas, 1u);
  EXPECT_EQ(s.warps, 1u);
}

TEST(Runner, TakenPathRunsFirst) {
  // Each path stores %clock (= warp instructions issued so far) so the order is visible.
  const uint64_t out = first_allocation();
  Function fn = KernelBuilder()
                    .mov(kR + 0, special(SpecialReg::tid_x))
                    .setp(Cmp::lo, kP + 1, reg(kR + 0), imm(1))
                    .bra_if(kP + 1, "TAKEN")
                    .mov(kR + 2, special(SpecialReg::clock))
                    .bra("JOIN")
                    .label("TAKEN")
                    .mov(kR + 2, special(SpecialReg::clock))
                    .label("JOIN")
                    .store_per_thread(out, kR + 2)
                    .ret()
                    .build();
  Launched l(std::move(fn), Dim3{1, 1, 1}, Dim3{2, 1, 1}, 2);
  l.run();
  std::vector<uint32_t> got = l.words(2);
  EXPECT_EQ(got[0], 3u);  // lane 0 took the branch and ran right after it
  EXPECT_EQ(got[1], 4u);
}

TEST(Runner, LoopWithPerThreadTripCounts) {
  const uint64_t out = first_allocation();
  Function fn = KernelBuilder()
                    .mov(kR + 0, special(SpecialReg::tid_x))          // 0
                    .mov(kR + 1, imm(0))                              // 1
                    .mov(kR + 2, imm(0))                              // 2
                    .label("LOOP")                                    //
                    .setp(Cmp::hs, kP + 1, reg(kR + 1), reg(kR + 0))  // 3
                    .bra_if(kP + 1, "DONE")                           // 4
                    .add(kR + 1, reg(kR + 1), imm(1))                 // 5
                    .add(kR + 2, reg(kR + 2), imm(10))                // 6
                    .bra("LOOP")                                      // 7
                    .label("DONE")                                    //
                    .store_per_thread(out, kR + 2)                    // 8, 9, 10
                    .ret()                                            // 11
                    .build();
  Launched l(std::move(fn), Dim3{1, 1, 1}, Dim3{4, 1, 1}, 4);
  RunStats s = l.run();
  EXPECT_EQ(l.words(4), (std::vector<uint32_t>{0, 10, 20, 30}));
  // 0-2: 3 x 4 lanes; iteration i (0..3) runs 3-4 with 4 - i lanes, iterations 0..2 run 5-7 with 3 - i lanes.
  EXPECT_EQ(s.warp_instructions, 3u + 4 * 2 + 3 * 3 + 4);
  EXPECT_EQ(s.thread_instructions, 12u + 2 * (4 + 3 + 2 + 1) + 3 * (3 + 2 + 1) + 4 * 4);
  EXPECT_EQ(s.branches, 4u);
  EXPECT_EQ(s.divergent_branches, 3u);
  EXPECT_EQ(s.max_stack_depth, 2u);
  EXPECT_EQ(s.per_branch.at(4).executed, 4u);
  EXPECT_EQ(s.per_branch.at(4).divergent, 3u);
}

TEST(Runner, GridOfCtasWithPartialWarpsIsDeterministic) {
  Launched l(divergent_if_else(), Dim3{3, 2, 1}, Dim3{40, 1, 1}, 40);
  RunStats a = l.run();
  RunStats b = l.run();
  EXPECT_EQ(a.ctas, 6u);
  EXPECT_EQ(a.warps, 12u);
  // Warp 0 diverges (16/16); warp 1 has 8 lanes, all >= 16: uniform.
  EXPECT_EQ(a.branches, 12u);
  EXPECT_EQ(a.divergent_branches, 6u);
  EXPECT_EQ(a.thread_instructions, 6u * ((3 * 32 + 16 + 2 * 16 + 5 * 32) + 10 * 8));
  EXPECT_EQ(a.warp_instructions, b.warp_instructions);
  EXPECT_EQ(a.thread_instructions, b.thread_instructions);
  EXPECT_EQ(a.per_branch.at(2).executed, b.per_branch.at(2).executed);
  EXPECT_NEAR(a.simd_utilization(), double(a.thread_instructions) / (double(a.warp_instructions) * kWarpSize),
              1e-12);
}

TEST(Runner, EarlyReturnReconvergesAtTheVirtualExit) {
  const uint64_t out = first_allocation();
  Function fn = KernelBuilder()
                    .mov(kR + 0, special(SpecialReg::tid_x))
                    .mov(kR + 2, imm(7))
                    .store_per_thread(out, kR + 2)
                    .setp(Cmp::lo, kP + 1, reg(kR + 0), imm(5))
                    .ret_if(kP + 1)
                    .mov(kR + 2, imm(9))
                    .store_per_thread(out, kR + 2)
                    .ret()
                    .build();
  Launched l(std::move(fn), Dim3{1, 1, 1}, Dim3{8, 1, 1}, 8);
  RunStats s = l.run();
  EXPECT_EQ(l.words(8), (std::vector<uint32_t>{7, 7, 7, 7, 7, 9, 9, 9}));
  EXPECT_EQ(s.max_stack_depth, 1u);  // no branch diverged: only the warp's base entry
}

TEST(Runner, BarrierWaitsForEveryWarp) {
  // Three warps pass two barriers in each of two CTAs.
  Function fn = KernelBuilder().bar_sync(0).bar_sync(1).ret().build();
  Launched l(std::move(fn), Dim3{2, 1, 1}, Dim3{96, 1, 1});
  RunStats s = l.run();
  EXPECT_EQ(s.barriers, 4u);  // two barriers per CTA
  EXPECT_EQ(s.warp_instructions, 2u * 3 * 3);
}

TEST(Runner, ExitedThreadsDoNotHoldBackABarrier) {
  Function fn = KernelBuilder()
                    .mov(kR + 0, special(SpecialReg::tid_x))
                    .setp(Cmp::lo, kP + 1, reg(kR + 0), imm(40))
                    .ret_if(kP + 1)
                    .bar_sync(0)
                    .ret()
                    .build();
  Launched l(std::move(fn), Dim3{1, 1, 1}, Dim3{64, 1, 1});
  RunStats s = l.run();
  EXPECT_EQ(s.barriers, 1u);
}

TEST(Runner, BarArriveDoesNotBlock) {
  // Warp 0 arrives at barrier 1 and then waits at barrier 2; warp 1 syncs on 2, then on 1. A blocking
  // bar.arrive would deadlock.
  Function fn = KernelBuilder()
                    .mov(kR + 0, special(SpecialReg::tid_x))
                    .setp(Cmp::hs, kP + 1, reg(kR + 0), imm(32))
                    .bra_if(kP + 1, "W1")
                    .op(Op::bar, Type::none, {}, {imm(1), imm(64)}, Sub::bar_arrive)
                    .bar_sync(2)
                    .ret()
                    .label("W1")
                    .bar_sync(2)
                    .bar_sync(1, 64)
                    .ret()
                    .build();
  Launched l(std::move(fn), Dim3{1, 1, 1}, Dim3{64, 1, 1});
  RunStats s = l.run();
  EXPECT_EQ(s.barriers, 2u);
}

TEST(Runner, WarpsWaitingAtDifferentBarriersDeadlock) {
  Function fn = KernelBuilder()
                    .mov(kR + 0, special(SpecialReg::tid_x))      // 0
                    .setp(Cmp::hs, kP + 1, reg(kR + 0), imm(32))  // 1
                    .bra_if(kP + 1, "W1")                         // 2
                    .bar_sync(0)                                  // 3
                    .ret()                                        // 4
                    .label("W1")                                  //
                    .bar_sync(1)                                  // 5
                    .ret()                                        // 6
                    .build();
  Launched l(std::move(fn), Dim3{1, 1, 1}, Dim3{64, 1, 1});
  const std::string e = run_error(l);
  EXPECT_NE(e.find("barrier 0 can never complete; waiting: warp 0 (32 threads) at PC 3"), std::string::npos)
      << e;
  EXPECT_NE(e.find("barrier 1 can never complete; waiting: warp 1 (32 threads) at PC 5"), std::string::npos)
      << e;
  EXPECT_NE(e.find("warp 1 lanes 0xffffffff [0xffffffff waiting at barrier 1 at PC 5"), std::string::npos)
      << e;
}

TEST(Runner, DivergentBarrierDeadlockIsReported) {
  Function fn = KernelBuilder()
                    .mov(kR + 0, special(SpecialReg::tid_x))      // 0
                    .setp(Cmp::lo, kP + 1, reg(kR + 0), imm(16))  // 1
                    .bra_if(kP + 1, "A")                          // 2
                    .bar_sync(0)                                  // 3
                    .bra("END")                                   // 4
                    .label("A")                                   //
                    .bar_sync(0)                                  // 5
                    .label("END")                                 //
                    .ret()                                        // 6
                    .build();
  Launched l(std::move(fn), Dim3{1, 1, 1}, Dim3{32, 1, 1});
  const std::string e = run_error(l);
  EXPECT_NE(e.find("deadlock in kernel k, CTA (0,0,0)"), std::string::npos) << e;
  EXPECT_NE(e.find("barrier 0 can never complete"), std::string::npos) << e;
  EXPECT_NE(e.find("warp 0 (16 threads) at PC 5 (PTX line 105)"), std::string::npos) << e;
  EXPECT_NE(e.find("arrived 16 of 32 threads"), std::string::npos) << e;
  EXPECT_NE(e.find("[0xffff0000 at PC 3"), std::string::npos) << e;
}

TEST(Runner, BarrierCountThatIsNeverReachedDeadlocks) {
  Function fn = KernelBuilder().bar_sync(2, 64).ret().build();
  Launched l(std::move(fn), Dim3{1, 1, 1}, Dim3{32, 1, 1});
  const std::string e = run_error(l);
  EXPECT_NE(e.find("barrier 2 can never complete"), std::string::npos) << e;
  EXPECT_NE(e.find("arrived 32 of 64 threads"), std::string::npos) << e;
}

TEST(Runner, InstructionBudgetIsEnforced) {
  Function fn = KernelBuilder().label("SPIN").add(kR + 1, reg(kR + 1), imm(1)).bra("SPIN").build();
  Launched l(std::move(fn), Dim3{1, 1, 1}, Dim3{32, 1, 1});
  const std::string e = run_error(l, 1000);
  EXPECT_NE(
      e.find("instruction budget of 1000 thread instructions exceeded in kernel k, CTA (0,0,0), warp 0, PC "),
      std::string::npos)
      << e;
}

// ---------------------------------------------------------------------------------------------------------
}  // namespace
}  // namespace simtlm::ptx
