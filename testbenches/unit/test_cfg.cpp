// Basic blocks, edges and immediate post-dominators of hand-built functions.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "models/ptx/cfg.hpp"

namespace simtlm::ptx {
namespace {

// Builds a Function from bra/ret/exit/trap/add instructions; labels are resolved at the end.
class CodeBuilder {
 public:
  CodeBuilder& label(const std::string& name) {
    fn_.labels[name] = static_cast<uint32_t>(fn_.code.size());
    return *this;
  }
  CodeBuilder& add() { return emit(Op::add); }
  CodeBuilder& bra(const std::string& target) { return branch(target, kNoReg, 0); }
  CodeBuilder& bra_if(const std::string& target) { return branch(target, 0, 0); }         // @%p0 bra
  CodeBuilder& bra_uni_if(const std::string& target) { return branch(target, 0, kUni); }  // @%p0 bra.uni
  CodeBuilder& ret() { return emit(Op::ret); }
  CodeBuilder& exit() { return emit(Op::exit); }
  CodeBuilder& trap() { return emit(Op::trap); }
  CodeBuilder& ret_if() {
    emit(Op::ret);
    fn_.code.back().guard = 0;
    return *this;
  }
  Function build() {
    for (auto& [pc, name] : pending_) fn_.code[pc].target = fn_.labels.at(name);
    pending_.clear();
    return fn_;
  }

 private:
  CodeBuilder& emit(Op op) {
    Instr in;
    in.op = op;
    fn_.code.push_back(in);
    return *this;
  }
  CodeBuilder& branch(const std::string& target, uint32_t guard, uint16_t flags) {
    emit(Op::bra);
    fn_.code.back().guard = guard;
    fn_.code.back().flags = flags;
    pending_.emplace_back(static_cast<uint32_t>(fn_.code.size() - 1), target);
    return *this;
  }
  Function fn_;
  std::vector<std::pair<uint32_t, std::string>> pending_;
};

std::vector<uint32_t> firsts(const Cfg& cfg) {
  std::vector<uint32_t> out;
  for (const auto& b : cfg.blocks()) out.push_back(b.first);
  return out;
}

std::vector<uint32_t> ipdoms(const Cfg& cfg) {
  std::vector<uint32_t> out;
  for (uint32_t b = 0; b < cfg.blocks().size(); ++b) out.push_back(cfg.ipdom_block(b));
  return out;
}

using V = std::vector<uint32_t>;

TEST(Cfg, StraightLine) {
  Function fn = CodeBuilder().add().add().ret().build();
  Cfg cfg(fn);
  EXPECT_EQ(firsts(cfg), (V{0, 3}));
  EXPECT_EQ(cfg.virtual_exit(), 1u);
  EXPECT_EQ(cfg.blocks()[0].last, 2u);
  EXPECT_EQ(cfg.blocks()[0].succ, (V{1}));
  EXPECT_EQ(cfg.blocks()[1].pred, (V{0}));
  EXPECT_EQ(ipdoms(cfg), (V{1, 1}));  // the virtual exit is its own ipdom
  EXPECT_EQ(cfg.block_of(3), 1u);     // code.size() maps to the virtual exit
}

TEST(Cfg, EmptyFunctionHasOnlyTheVirtualExit) {
  Function fn;
  Cfg cfg(fn);
  EXPECT_EQ(cfg.blocks().size(), 1u);
  EXPECT_EQ(cfg.virtual_exit(), 0u);
}

TEST(Cfg, IfElseDiamond) {
  // B0: 0 add, 1 @p bra ELSE | B1: 2 add, 3 bra JOIN | B2: 4 add (ELSE) | B3: 5 add, 6 ret (JOIN) | exit B4
  Function fn = CodeBuilder()
                    .add()
                    .bra_if("ELSE")
                    .add()
                    .bra("JOIN")
                    .label("ELSE")
                    .add()
                    .label("JOIN")
                    .add()
                    .ret()
                    .build();
  Cfg cfg(fn);
  EXPECT_EQ(firsts(cfg), (V{0, 2, 4, 5, 7}));
  EXPECT_EQ(cfg.blocks()[0].succ, (V{2, 1}));  // target first, then fallthrough
  EXPECT_EQ(cfg.blocks()[1].succ, (V{3}));
  EXPECT_EQ(cfg.blocks()[2].succ, (V{3}));
  EXPECT_EQ(cfg.blocks()[3].pred, (V{1, 2}));
  EXPECT_EQ(ipdoms(cfg), (V{3, 3, 3, 4, 4}));
  EXPECT_EQ(cfg.reconvergence_pc(1), 5u);
  EXPECT_TRUE(cfg.is_conditional_branch(1));
  EXPECT_FALSE(cfg.is_conditional_branch(3));  // unguarded
  EXPECT_FALSE(cfg.is_conditional_branch(0));  // not a branch
}

TEST(Cfg, IfWithoutElse) {
  // B0: 0 @p bra END | B1: 1 add | B2: 2 add, 3 ret (END) | exit B3
  Function fn = CodeBuilder().bra_if("END").add().label("END").add().ret().build();
  Cfg cfg(fn);
  EXPECT_EQ(firsts(cfg), (V{0, 1, 2, 4}));
  EXPECT_EQ(ipdoms(cfg), (V{2, 2, 3, 3}));
  EXPECT_EQ(cfg.reconvergence_pc(0), 2u);
}

TEST(Cfg, WhileLoop) {
  // B0: 0 add | B1 (HEAD): 1 @p bra DONE | B2: 2 add, 3 bra HEAD | B3 (DONE): 4 ret | exit B4
  Function fn =
      CodeBuilder().add().label("HEAD").bra_if("DONE").add().bra("HEAD").label("DONE").ret().build();
  Cfg cfg(fn);
  EXPECT_EQ(firsts(cfg), (V{0, 1, 2, 4, 5}));
  EXPECT_EQ(cfg.blocks()[1].pred, (V{0, 2}));
  EXPECT_EQ(ipdoms(cfg), (V{1, 3, 1, 4, 4}));
  EXPECT_EQ(cfg.reconvergence_pc(1), 4u);
}

TEST(Cfg, DoWhileLoopBranchReconvergesAfterTheLoop) {
  // B0 (BODY): 0 add, 1 @p bra BODY | B1: 2 ret | exit B2
  Function fn = CodeBuilder().label("BODY").add().bra_if("BODY").ret().build();
  Cfg cfg(fn);
  EXPECT_EQ(firsts(cfg), (V{0, 2, 3}));
  EXPECT_EQ(cfg.blocks()[0].succ, (V{0, 1}));  // self loop
  EXPECT_EQ(ipdoms(cfg), (V{1, 2, 2}));
  EXPECT_EQ(cfg.reconvergence_pc(1), 2u);
}

TEST(Cfg, NestedLoopsWithBreakAndContinue) {
  //  0 OUTER:  add                     B0
  //  1 INNER:  @p bra OUTER_LATCH      B1  (break out of the inner loop)
  //  2         @p bra INNER            B2  (continue the inner loop)
  //  3         add                     B3
  //  4         @p bra INNER            B3  (inner back edge)
  //  5 OUTER_LATCH: add                B4
  //  6         @p bra OUTER            B4  (outer back edge)
  //  7         ret                     B5
  //                                    B6 virtual exit
  Function fn = CodeBuilder()
                    .label("OUTER")
                    .add()
                    .label("INNER")
                    .bra_if("OUTER_LATCH")
                    .bra_if("INNER")
                    .add()
                    .bra_if("INNER")
                    .label("OUTER_LATCH")
                    .add()
                    .bra_if("OUTER")
                    .ret()
                    .build();
  Cfg cfg(fn);
  EXPECT_EQ(firsts(cfg), (V{0, 1, 2, 3, 5, 7, 8}));
  EXPECT_EQ(cfg.blocks()[1].pred, (V{0, 2, 3}));
  EXPECT_EQ(cfg.blocks()[4].pred, (V{1, 3}));
  // B2 can leave through B1 or B3; both paths meet only at the outer latch.
  EXPECT_EQ(ipdoms(cfg), (V{1, 4, 4, 4, 5, 6, 6}));
  EXPECT_EQ(cfg.reconvergence_pc(1), 5u);  // break: reconverge at the outer latch
  EXPECT_EQ(cfg.reconvergence_pc(2), 5u);  // continue: also at the outer latch
  EXPECT_EQ(cfg.reconvergence_pc(4), 5u);
  EXPECT_EQ(cfg.reconvergence_pc(6), 7u);
}

TEST(Cfg, MultipleExits) {
  //  0  @p bra BODY    B0
  //  1  ret            B1 (early return)
  //  2 BODY: add       B2
  //  3  @p bra END     B2
  //  4  exit           B3
  //  5 END: ret        B4
  //                    B5 virtual exit
  Function fn =
      CodeBuilder().bra_if("BODY").ret().label("BODY").add().bra_if("END").exit().label("END").ret().build();
  Cfg cfg(fn);
  EXPECT_EQ(firsts(cfg), (V{0, 1, 2, 4, 5, 6}));
  EXPECT_EQ(cfg.blocks()[5].pred, (V{1, 3, 4}));
  EXPECT_EQ(ipdoms(cfg), (V{5, 5, 5, 5, 5, 5}));
  EXPECT_EQ(cfg.reconvergence_pc(0), kNoTarget);  // the branch's ipdom is the virtual exit
  EXPECT_EQ(cfg.reconvergence_pc(3), kNoTarget);
}

TEST(Cfg, GuardedRetAndTrap) {
  //  0 @p ret  B0 | 1 add, 2 trap  B1 | exit B2
  Function fn = CodeBuilder().ret_if().add().trap().build();
  Cfg cfg(fn);
  EXPECT_EQ(firsts(cfg), (V{0, 1, 3}));
  EXPECT_EQ(cfg.blocks()[0].succ, (V{2, 1}));
  EXPECT_EQ(ipdoms(cfg), (V{2, 2, 2}));
}

TEST(Cfg, InfiniteLoopIsConnectedToTheVirtualExit) {
  //  0 @p bra SPIN     B0
  //  1 ret             B1
  //  2 SPIN: @p bra A  B2   diamond inside an endless loop
  //  3 add             B3
  //  4 bra JOIN        B3
  //  5 A: add          B4
  //  6 JOIN: add       B5
  //  7 bra SPIN        B5   back edge, never leaves
  //                    B6 virtual exit
  Function fn = CodeBuilder()
                    .bra_if("SPIN")
                    .ret()
                    .label("SPIN")
                    .bra_if("A")
                    .add()
                    .bra("JOIN")
                    .label("A")
                    .add()
                    .label("JOIN")
                    .add()
                    .bra("SPIN")
                    .build();
  Cfg cfg(fn);
  EXPECT_EQ(firsts(cfg), (V{0, 1, 2, 3, 5, 6, 8}));
  EXPECT_EQ(cfg.blocks()[5].succ, (V{2}));  // the virtual edge is not a real successor
  // Only the latch (B5) gets the virtual edge, so the diamond in the loop still reconverges at JOIN.
  EXPECT_EQ(ipdoms(cfg), (V{6, 6, 5, 5, 5, 6, 6}));
  EXPECT_EQ(cfg.reconvergence_pc(2), 6u);
  EXPECT_EQ(cfg.reconvergence_pc(0), kNoTarget);
}

TEST(Cfg, SelfLoopForever) {
  //  0 L: bra L  B0 | exit B1
  Function fn = CodeBuilder().label("L").bra("L").build();
  Cfg cfg(fn);
  EXPECT_EQ(firsts(cfg), (V{0, 1}));
  EXPECT_EQ(ipdoms(cfg), (V{1, 1}));
}

TEST(Cfg, UnreachableCode) {
  //  0 bra END   B0
  //  1 add       B1 (unreachable)
  //  2 add       B1
  //  3 END: ret  B2
  //              B3 virtual exit
  Function fn = CodeBuilder().bra("END").add().add().label("END").ret().build();
  Cfg cfg(fn);
  EXPECT_EQ(firsts(cfg), (V{0, 1, 3, 4}));
  EXPECT_TRUE(cfg.blocks()[1].pred.empty());
  EXPECT_EQ(cfg.blocks()[2].pred, (V{0, 1}));
  EXPECT_EQ(ipdoms(cfg), (V{2, 2, 3, 3}));
}

TEST(Cfg, FallingOffTheEndReachesTheVirtualExit) {
  //  0 @p bra.uni END  B0 | 1 add  B1 | 2 END: add  B2 | exit B3
  Function fn = CodeBuilder().bra_uni_if("END").add().label("END").add().build();
  Cfg cfg(fn);
  EXPECT_EQ(firsts(cfg), (V{0, 1, 2, 3}));
  EXPECT_EQ(cfg.blocks()[2].succ, (V{3}));
  EXPECT_EQ(ipdoms(cfg), (V{2, 2, 3, 3}));
  EXPECT_FALSE(cfg.is_conditional_branch(0));  // .uni
  EXPECT_EQ(cfg.reconvergence_pc(0), 2u);
}

TEST(Cfg, BranchToTheEndOfTheCode) {
  //  0 @p bra END  B0 | 1 ret  B1 | END = 2 = code.size(): the virtual exit B2
  Function fn = CodeBuilder().bra_if("END").ret().label("END").build();
  Cfg cfg(fn);
  EXPECT_EQ(firsts(cfg), (V{0, 1, 2}));
  EXPECT_EQ(cfg.blocks()[0].succ, (V{2, 1}));
  EXPECT_EQ(cfg.reconvergence_pc(0), kNoTarget);
}

}  // namespace
}  // namespace simtlm::ptx
