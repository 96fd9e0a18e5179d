#include "models/ptx/herd_loops.hpp"

#include <algorithm>
#include <optional>

namespace simtlm::ptx::herd {
namespace {

bool is_ordering(Cmp cmp) {
  switch (cmp) {
    case Cmp::lt:
    case Cmp::le:
    case Cmp::gt:
    case Cmp::ge:
    case Cmp::lo:
    case Cmp::ls:
    case Cmp::hi:
    case Cmp::hs:
      return true;
    default:
      return false;
  }
}

// !(a cmp b) as a comparison of a and b (integers only, so no unordered cases).
Cmp negated(Cmp cmp) {
  switch (cmp) {
    case Cmp::lt:
      return Cmp::ge;
    case Cmp::ge:
      return Cmp::lt;
    case Cmp::le:
      return Cmp::gt;
    case Cmp::gt:
      return Cmp::le;
    case Cmp::lo:
      return Cmp::hs;
    case Cmp::hs:
      return Cmp::lo;
    case Cmp::ls:
      return Cmp::hi;
    case Cmp::hi:
      return Cmp::ls;
    default:
      return cmp;
  }
}

// (a cmp b) == (b swapped(cmp) a).
Cmp swapped(Cmp cmp) {
  switch (cmp) {
    case Cmp::lt:
      return Cmp::gt;
    case Cmp::gt:
      return Cmp::lt;
    case Cmp::le:
      return Cmp::ge;
    case Cmp::ge:
      return Cmp::le;
    case Cmp::lo:
      return Cmp::hi;
    case Cmp::hi:
      return Cmp::lo;
    case Cmp::ls:
      return Cmp::hs;
    case Cmp::hs:
      return Cmp::ls;
    default:
      return cmp;
  }
}

bool is_integer(Type t) {
  return t != Type::pred && t != Type::none && !type_is_float(t) && type_bits(t) <= 64;
}

int64_t signed_immediate(uint64_t bits, Type type) {
  const unsigned width = type_bits(type);
  if (width == 0 || width >= 64) return static_cast<int64_t>(bits);
  const uint64_t mask = (uint64_t{1} << width) - 1;
  const uint64_t value = bits & mask;
  const uint64_t sign = uint64_t{1} << (width - 1);
  return static_cast<int64_t>(value ^ sign) - static_cast<int64_t>(sign);
}

bool is_thread_varying(SpecialReg reg) {
  switch (reg) {
    case SpecialReg::ntid_x:
    case SpecialReg::ntid_y:
    case SpecialReg::ntid_z:
    case SpecialReg::ctaid_x:
    case SpecialReg::ctaid_y:
    case SpecialReg::ctaid_z:
    case SpecialReg::nctaid_x:
    case SpecialReg::nctaid_y:
    case SpecialReg::nctaid_z:
    case SpecialReg::gridid:
    case SpecialReg::envreg1:
    case SpecialReg::envreg2:
    case SpecialReg::warpid:
    case SpecialReg::nwarpid:
    case SpecialReg::smid:
    case SpecialReg::nsmid:
      return false;
    default:
      return true;  // thread ids, lane masks and clocks
  }
}

bool is_data_load(const Instr& in) {
  return (in.op == Op::ld && in.space != Space::param) || in.op == Op::atom || in.op == Op::tex;
}

// True when the instruction's result may differ between the lanes of a warp whatever its operands.
bool varies_by_lane(const Instr& in) {
  if (is_data_load(in)) return true;
  switch (in.op) {
    case Op::activemask:
    case Op::vote:
    case Op::shfl:
    case Op::match:
    case Op::redux:
    case Op::fns:
      return true;
    default:
      break;
  }
  for (uint32_t i = 0; i < in.nsrc; ++i) {
    if (in.src[i].kind == OperandKind::special && is_thread_varying(in.src[i].sreg)) return true;
  }
  return false;
}

// A setp whose result, with the given value, makes the exit decision leave the loop.
struct ForcingTest {
  uint32_t setp = 0;
  bool outcome = false;  // the value of the comparison itself (before setp's combining operand)
};

class ExitAnalyzer {
 public:
  ExitAnalyzer(const DependenceGraph& graph, const std::vector<Loop>& loops, const Loop& loop)
      : graph_(graph), loops_(loops), loop_(loop) {}

  std::optional<BoundedExit> analyze(uint32_t decision) const {
    const Instr& in = graph_.kernel().code[decision];
    if (in.guard == kNoReg) return std::nullopt;
    const Cfg& cfg = graph_.cfg();
    const uint32_t n = graph_.size();
    const uint32_t taken = in.op == Op::bra ? cfg.block_of(std::min(in.target, n)) : cfg.virtual_exit();
    const uint32_t fallthrough = cfg.block_of(decision + 1);
    const bool taken_leaves = !inside(taken);
    if (taken_leaves == !inside(fallthrough)) return std::nullopt;
    // The branch is taken when the guard differs from guard_neg.
    const bool exit_value = taken_leaves != in.guard_neg;
    std::vector<ForcingTest> tests;
    collect_forcing(in.guard, exit_value, decision, 0, tests);
    std::optional<BoundedExit> best;
    for (const ForcingTest& test : tests) {
      std::optional<BoundedExit> found = bounded_test(decision, test);
      if (found && (!best || (found->uniform && !best->uniform))) best = std::move(found);
    }
    return best;
  }

 private:
  bool inside(uint32_t block) const { return block < loop_.body.size() && loop_.body[block]; }

  // The setps that alone make `reg` (read at use_pc) equal `value`, through and/or/not/mov of predicates and
  // setp's combining operand.
  void collect_forcing(uint32_t reg, bool value, uint32_t use_pc, int depth,
                       std::vector<ForcingTest>& out) const {
    if (depth > 16 || reg == kNoReg) return;
    const RegRead* read = graph_.read_of(use_pc, reg);
    if (!read || read->defs.size() != 1 || read->maybe_undefined) return;
    const uint32_t def = read->defs[0];
    const Instr& in = graph_.kernel().code[def];
    if (in.guard != kNoReg) return;
    auto operand = [&](uint32_t i, bool wanted) {
      if (in.src[i].kind == OperandKind::reg) collect_forcing(in.src[i].reg, wanted, def, depth + 1, out);
    };
    switch (in.op) {
      case Op::and_:
        if (!value) {
          operand(0, false);
          operand(1, false);
        }
        return;
      case Op::or_:
        if (value) {
          operand(0, true);
          operand(1, true);
        }
        return;
      case Op::not_:
        operand(0, !value);
        return;
      case Op::mov:
        if (in.type == Type::pred) operand(0, value);
        return;
      case Op::setp: {
        // p = cmp BOP c, q = !cmp BOP c; the comparison literal forces the result when BOP lets it.
        const bool second = in.ndst > 1 && in.dst[1].kind == OperandKind::reg && in.dst[1].reg == reg;
        if (in.bop == BoolOp::and_ && value) return;
        if (in.bop == BoolOp::or_ && !value) return;
        if (in.bop == BoolOp::xor_) return;
        out.push_back(ForcingTest{def, second ? !value : value});
        if (in.bop != BoolOp::none && in.nsrc > 2) operand(2, value != in.src[2].negate);
        return;
      }
      default:
        return;
    }
  }

  std::optional<BoundedExit> bounded_test(uint32_t decision, const ForcingTest& test) const {
    const Instr& setp = graph_.kernel().code[test.setp];
    if (!is_integer(setp.type) || !is_ordering(setp.cmp) || !inside(graph_.cfg().block_of(test.setp)))
      return std::nullopt;
    const Cmp exit_rel = test.outcome ? setp.cmp : negated(setp.cmp);
    for (int counter_index = 0; counter_index < 2; ++counter_index) {
      const Operand& counter = setp.src[counter_index];
      const Operand& bound = setp.src[1 - counter_index];
      if (counter.kind != OperandKind::reg) continue;
      const Cmp rel = counter_index == 0 ? exit_rel : swapped(exit_rel);
      std::optional<BoundedExit> found = counter_exit(decision, test.setp, counter.reg, bound, rel);
      if (found) return found;
    }
    return std::nullopt;
  }

  std::optional<BoundedExit> counter_exit(uint32_t decision, uint32_t setp_pc, uint32_t counter,
                                          const Operand& bound, Cmp rel) const {
    const auto& code = graph_.kernel().code;
    // The one definition of the counter in the loop: an unguarded counter += constant.
    std::vector<uint32_t> defs_in_loop;
    const auto& blocks = graph_.cfg().blocks();
    for (uint32_t b = 0; b < blocks.size(); ++b) {
      if (!inside(b) || b == graph_.cfg().virtual_exit()) continue;
      for (uint32_t pc = blocks[b].first; pc <= blocks[b].last; ++pc) {
        const auto written = written_registers(code[pc]);
        if (std::find(written.begin(), written.end(), counter) != written.end()) defs_in_loop.push_back(pc);
      }
    }
    if (defs_in_loop.size() != 1) return std::nullopt;
    const uint32_t update = defs_in_loop[0];
    const Instr& in = code[update];
    if (in.guard != kNoReg || (in.op != Op::add && in.op != Op::sub) || !is_integer(in.type) || in.nsrc != 2)
      return std::nullopt;
    int64_t step = 0;
    if (in.src[0].kind == OperandKind::reg && in.src[0].reg == counter &&
        in.src[1].kind == OperandKind::imm) {
      step = signed_immediate(in.src[1].imm, in.type);
      if (in.op == Op::sub) step = -step;
    } else if (in.op == Op::add && in.src[1].kind == OperandKind::reg && in.src[1].reg == counter &&
               in.src[0].kind == OperandKind::imm) {
      step = signed_immediate(in.src[0].imm, in.type);
    }
    if (step == 0) return std::nullopt;
    const bool up = rel == Cmp::ge || rel == Cmp::gt || rel == Cmp::hs || rel == Cmp::hi;
    if (up != (step > 0)) return std::nullopt;
    // The update runs exactly once per iteration: its block dominates every latch and sits in no inner loop.
    const uint32_t update_block = graph_.cfg().block_of(update);
    for (uint32_t latch : loop_.latches) {
      if (!graph_.dominates(update_block, latch)) return std::nullopt;
    }
    if (!once_per_iteration(update_block)) return std::nullopt;
    const RegRead* carried = graph_.read_of(update, counter);
    if (!carried || carried->maybe_undefined) return std::nullopt;
    std::vector<uint32_t> start;
    for (uint32_t def : carried->defs) {
      if (def != update) start.push_back(def);
    }
    if (start.empty()) return std::nullopt;
    std::vector<uint32_t> bound_defs;
    bool bound_varies = false;
    if (bound.kind == OperandKind::reg) {
      const RegRead* read = graph_.read_of(setp_pc, bound.reg);
      if (!read || read->maybe_undefined || read->defs.empty()) return std::nullopt;
      for (uint32_t def : read->defs) {
        if (inside(graph_.cfg().block_of(def))) return std::nullopt;  // not loop-invariant
      }
      bound_defs = read->defs;
    } else if (bound.kind == OperandKind::special) {
      bound_varies = is_thread_varying(bound.sreg);
    } else if (bound.kind != OperandKind::imm) {
      return std::nullopt;
    }
    const std::vector<uint8_t> start_slice = backward_slice(graph_, start);
    const std::vector<uint8_t> bound_slice = backward_slice(graph_, bound_defs);
    BoundedExit exit;
    exit.branch = decision;
    exit.test = setp_pc;
    exit.counter = counter;
    exit.influencers.assign(graph_.size(), 0);
    bool uniform = !bound_varies;
    for (uint32_t pc = 0; pc < graph_.size(); ++pc) {
      if (start_slice[pc] && is_data_load(code[pc])) return std::nullopt;  // the start depends on a load
      if (!start_slice[pc] && !bound_slice[pc]) continue;
      exit.influencers[pc] = 1;
      if (varies_by_lane(code[pc])) uniform = false;
    }
    exit.uniform = uniform;
    return exit;
  }

  // Every loop holding the block also holds this loop's header: the block is in no loop nested in this one.
  bool once_per_iteration(uint32_t block) const {
    return std::none_of(loops_.begin(), loops_.end(),
                        [&](const Loop& other) { return other.body[block] && !other.body[loop_.header]; });
  }

  const DependenceGraph& graph_;
  const std::vector<Loop>& loops_;
  const Loop& loop_;
};

}  // namespace

LoopInfo::LoopInfo(const DependenceGraph& graph) : graph_(graph) {
  const Cfg& cfg = graph.cfg();
  const auto& blocks = cfg.blocks();
  const auto nb = static_cast<uint32_t>(blocks.size());
  // Back edges t -> h where h dominates t; one loop per header.
  for (uint32_t h = 0; h < nb; ++h) {
    if (h == cfg.virtual_exit()) continue;
    Loop loop;
    loop.header = h;
    for (uint32_t t : blocks[h].pred) {
      if (graph.dominates(h, t)) loop.latches.push_back(t);
    }
    if (loop.latches.empty()) continue;
    std::sort(loop.latches.begin(), loop.latches.end());
    loop.body.assign(nb, 0);
    loop.body[h] = 1;
    std::vector<uint32_t> work(loop.latches.begin(), loop.latches.end());
    while (!work.empty()) {
      const uint32_t b = work.back();
      work.pop_back();
      if (loop.body[b]) continue;
      loop.body[b] = 1;
      for (uint32_t p : blocks[b].pred) work.push_back(p);
    }
    loops_.push_back(std::move(loop));
  }
  irreducible_.assign(nb, 0);
  for (uint32_t b = 0; b < nb; ++b) {
    if (b == cfg.virtual_exit() || !graph.reaches(b, b)) continue;
    const bool natural =
        std::any_of(loops_.begin(), loops_.end(), [&](const Loop& l) { return l.body[b] != 0; });
    if (!natural) irreducible_[b] = 1;
  }
  bounded_.resize(loops_.size());
  for (uint32_t l = 0; l < loops_.size(); ++l) find_bounded_exits(l);
}

void LoopInfo::find_bounded_exits(uint32_t index) {
  const Loop& loop = loops_[index];
  ExitAnalyzer analyzer(graph_, loops_, loop);
  const auto& blocks = graph_.cfg().blocks();
  for (uint32_t b = 0; b < blocks.size(); ++b) {
    if (!loop.body[b] || b == graph_.cfg().virtual_exit()) continue;
    const uint32_t decision = blocks[b].last;
    if (!graph_.is_decision(decision)) continue;
    // The exit must be tested in every iteration.
    const bool every_iteration = std::all_of(loop.latches.begin(), loop.latches.end(),
                                             [&](uint32_t latch) { return graph_.dominates(b, latch); });
    if (!every_iteration) continue;
    std::optional<BoundedExit> exit = analyzer.analyze(decision);
    if (exit) bounded_[index].push_back(std::move(*exit));
  }
}

std::vector<uint32_t> LoopInfo::controlled_by(uint32_t pc) const {
  std::vector<uint32_t> out;
  if (!graph_.is_decision(pc)) return out;
  const uint32_t block = graph_.cfg().block_of(pc);
  const auto& succ = graph_.cfg().blocks()[block].succ;
  for (uint32_t l = 0; l < loops_.size(); ++l) {
    const Loop& loop = loops_[l];
    if (!loop.body[block]) continue;
    const bool decides = std::any_of(succ.begin(), succ.end(), [&](uint32_t s) {
      return s == loop.header || s >= loop.body.size() || !loop.body[s];
    });
    if (decides) out.push_back(l);
  }
  return out;
}

bool LoopInfo::in_irreducible_cycle(uint32_t pc) const {
  return graph_.is_decision(pc) && irreducible_[graph_.cfg().block_of(pc)];
}

}  // namespace simtlm::ptx::herd
