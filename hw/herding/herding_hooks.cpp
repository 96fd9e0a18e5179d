#include "hw/herding/herding_hooks.hpp"

#include <algorithm>
#include <bit>
#include <span>
#include <stdexcept>

#include "hw/herding/herding_stats.hpp"
#include "hw/issue_info.hpp"

namespace simtlm::hw {

struct Herding::KernelState {
  const ptx::Function* kernel = nullptr;
  std::string name;               // copied: statistics() may be read after the session is gone
  std::vector<std::string> site;  // per PC, for conditional branches and loads: describe_pc
  KernelHerdPlan plan;
  std::vector<BranchSiteCounts> branch;  // per PC
  std::vector<LoadSiteCounts> load;      // per PC
};

namespace {

void set_branch_counts(stats::Group& g, const BranchSiteCounts& c) {
  g.set("executions", c.executions);
  g.set("divergent", c.divergent);
  g.set("herded", c.herded);
  g.set("lanes_forced", c.lanes_forced);
}

void set_load_counts(stats::Group& g, const LoadSiteCounts& c, uint64_t block_bytes) {
  g.set("executions", c.executions);
  g.set("herded", c.herded);
  g.set("lanes_rewritten", c.lanes_rewritten);
  g.set("requests_before", c.blocks_before);
  g.set("requests_after", c.blocks_after);
  g.set("bytes_before", c.blocks_before * block_bytes);
  g.set("bytes_after", c.blocks_after * block_bytes);
}

}  // namespace

Herding::Herding(launch::HerdingSpec spec, BranchMajority& majority, BlockSelection& selector)
    : spec_(std::move(spec)), majority_(majority), selector_(selector) {
  launch::check_herding_spec(spec_);
}

Herding::~Herding() = default;

void Herding::set_selector_rounds(uint32_t rounds) {
  // Without data herding the selector is idle, so only a selector that could not exist is refused.
  const uint32_t group = herds_loads() ? spec_.group_lanes : ptx::kWarpSize;
  if (!std::has_single_bit(rounds) || group % rounds != 0) {
    std::string message = std::to_string(rounds);
    message.append(" rounds do not divide ");
    message.append(herds_loads() ? "herding.group_lanes " : "a warp of ").append(std::to_string(group));
    message.append(" lanes (the selector compares group_lanes / rounds lanes per cycle)");
    throw std::invalid_argument(message);
  }
  selector_rounds_ = rounds;
}

uint32_t Herding::load_cycles() const {
  return spec_.load_cycles.value_or(PopularBlockSelector::latency_cycles(selector_rounds_));
}

Herding::KernelState& Herding::state(const ptx::Function& kernel, const ptx::Module* module) {
  if (last_ && last_->kernel == &kernel) return *last_;
  for (auto& k : kernels_) {
    if (k->kernel == &kernel) return *(last_ = k.get());
  }
  if (!module) throw std::logic_error("herding: an execution event without its module");
  auto k = std::make_unique<KernelState>();
  k->kernel = &kernel;
  k->name = kernel.name;
  k->site.resize(kernel.code.size());
  for (uint32_t pc = 0; pc < kernel.code.size(); ++pc) {
    if (is_conditional_branch(kernel.code[pc]) || kernel.code[pc].op == ptx::Op::ld)
      k->site[pc] = describe_pc(*module, kernel, pc);
  }
  k->plan = plan_kernel(spec_, *module, kernel);
  k->branch.resize(kernel.code.size());
  k->load.resize(kernel.code.size());
  kernels_.push_back(std::move(k));
  return *(last_ = kernels_.back().get());
}

// The majority unit decides at the default threshold (so --rtl majority can replace it); another threshold
// is the same comparison with a different constant, done here.
bool Herding::herd_direction(uint64_t taken, uint64_t active) {
  if (spec_.threshold == 0.5) return majority_.vote(taken, active).herd_taken;
  const double taking = double(std::popcount(taken & active));
  const double bound = spec_.threshold * double(std::popcount(active));
  if (taking != bound) return taking > bound;
  return spec_.tie == launch::HerdTie::taken;
}

ptx::BranchDecision Herding::branch_taken(const ptx::BranchEvent& event) {
  KernelState& k = state(event.kernel, event.module);
  BranchSiteCounts& counts = k.branch[event.pc];
  ++counts.executions;
  const ptx::LaneMask taken = event.taken & event.active;
  const bool divergent = taken != 0 && taken != event.active;
  counts.divergent += divergent;
  if (!k.plan.branch[event.pc] || switched_off() || observe_) return taken;
  const uint32_t cycles = spec_.branch_cycles;
  if (!divergent) return {taken, cycles};
  const ptx::LaneMask herded = herd_direction(taken, event.active) ? event.active : 0;
  ++counts.herded;
  counts.lanes_forced += uint64_t(std::popcount(herded ^ taken));
  ++instances_;
  return {herded, cycles};
}

uint32_t Herding::rewrite_load(const ptx::LoadEvent& event, ptx::LaneAddresses& address) {
  KernelState& k = state(event.kernel, event.module);
  const KernelHerdPlan& plan = k.plan;
  if (event.space != ptx::Space::global && event.space != ptx::Space::generic &&
      event.space != ptx::Space::none)
    return 0;
  if (!plan.load[event.pc] && !(plan.by_buffer && plan.load_safe[event.pc])) return 0;
  const unsigned first = unsigned(std::countr_zero(event.active));
  // Generic loads into shared or local windows, and loads outside the named buffers, are not the coalescer's.
  const ptx::Allocation* holder = event.global ? event.global->find(address[first], 1) : nullptr;
  if (!holder) return 0;
  if (!plan.load[event.pc] &&
      std::find(spec_.buffers.begin(), spec_.buffers.end(), holder->name) == spec_.buffers.end())
    return 0;
  LoadSiteCounts& counts = k.load[event.pc];
  ++counts.executions;
  const unsigned shift = unsigned(std::countr_zero(spec_.block_bytes));
  const bool off = switched_off() || observe_;
  bool herded_any = false;
  const uint32_t group = spec_.group_lanes;
  const ptx::LaneMask group_mask = group == 32 ? ~ptx::LaneMask{0} : (ptx::LaneMask{1} << group) - 1;
  for (uint32_t base = 0; base < ptx::kWarpSize; base += group) {
    const ptx::LaneMask lanes = event.active & (group_mask << base);
    if (!lanes) continue;
    std::array<uint64_t, ptx::kWarpSize> blocks{};
    size_t distinct = 0;
    for (ptx::LaneMask m = lanes; m; m &= m - 1) blocks[distinct++] = address[std::countr_zero(m)] >> shift;
    std::sort(blocks.begin(), blocks.begin() + long(distinct));
    distinct = size_t(std::unique(blocks.begin(), blocks.begin() + long(distinct)) - blocks.begin());
    counts.blocks_before += distinct;
    if (off || distinct == 1) {
      counts.blocks_after += distinct;
      continue;
    }
    counts.blocks_after += 1;
    const HerdedLoad herded =
        selector_.select(std::span<const uint64_t>(address.data(), ptx::kWarpSize), lanes, shift);
    // A lane moved past the end of the winning block's buffer (its size need not be a multiple of the block)
    // reads the first winning lane's element instead: still one block, and no read outside the buffer, as a
    // GPU whose allocations are whole pages would not fault there either.
    uint64_t winner = 0;
    for (ptx::LaneMask m = lanes; m; m &= m - 1) {
      const auto lane = unsigned(std::countr_zero(m));
      if (address[lane] >> shift == herded.block) {
        winner = address[lane];
        break;
      }
    }
    const ptx::Allocation* buffer = event.global ? event.global->find(winner, 1) : nullptr;
    for (ptx::LaneMask m = lanes; m; m &= m - 1) {
      const auto lane = unsigned(std::countr_zero(m));
      uint64_t moved = herded.address[lane];
      if (buffer && (moved < buffer->base || moved + event.bytes > buffer->base + buffer->size))
        moved = winner;
      counts.lanes_rewritten += moved != address[lane];
      address[lane] = moved;
    }
    herded_any = true;
  }
  if (herded_any) {
    ++counts.herded;
    ++instances_;
  }
  return off ? 0 : load_cycles();
}

stats::Group Herding::statistics() const {
  stats::Group doc(herding_stats_decl());
  doc.set("spec", launch::herding_yaml(spec_, 0));
  doc.set("max_instances", spec_.max_instances);
  doc.set("instances", instances_);
  doc.set("switched_off", switched_off());
  if (herds_loads()) {
    stats::Group& latency = doc.group("load_latency");
    latency.set("cycles", load_cycles());
    latency.set("source", load_cycles_source());
    latency.set("selector_rounds", selector_rounds_);
  }
  const uint64_t block = spec_.block_bytes;
  BranchSiteCounts branch_total;
  LoadSiteCounts load_total;
  for (const auto& k : kernels_) {
    stats::Group& kernel = doc.row("kernels", k->name);
    for (uint32_t pc = 0; pc < k->branch.size(); ++pc) {
      const BranchSiteCounts& c = k->branch[pc];
      if (!c.executions) continue;
      stats::Group& row = kernel.add_list_row("branches");
      row.set("pc", pc);
      row.set("site", k->site[pc]);
      row.set("herd", bool(k->plan.branch[pc]));
      set_branch_counts(row, c);
      branch_total.executions += c.executions;
      branch_total.divergent += c.divergent;
      branch_total.herded += c.herded;
      branch_total.lanes_forced += c.lanes_forced;
    }
    for (uint32_t pc = 0; pc < k->load.size(); ++pc) {
      const LoadSiteCounts& c = k->load[pc];
      if (!c.executions) continue;
      stats::Group& row = kernel.add_list_row("loads");
      row.set("pc", pc);
      row.set("site", k->site[pc]);
      set_load_counts(row, c, block);
      load_total.executions += c.executions;
      load_total.herded += c.herded;
      load_total.lanes_rewritten += c.lanes_rewritten;
      load_total.blocks_before += c.blocks_before;
      load_total.blocks_after += c.blocks_after;
    }
    kernel.set("skipped", stats::Value::list(k->plan.skipped));
  }
  set_branch_counts(doc.group("branches"), branch_total);
  set_load_counts(doc.group("loads"), load_total, block);
  return doc;
}

}  // namespace simtlm::hw
