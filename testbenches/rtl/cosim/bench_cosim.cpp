// Cost of one unit evaluation at W = 32 per backend: the C++ model, the Verilated --cc twin called through
// the unit interface, the checking wrapper (both, compared), and the Verilated --sc twin inside a SystemC
// module (ScTwins: one delta cycle per combinational evaluation, one clock cycle per compactor step, and for
// the pipelined popular-block selector its start edge plus latency_cycles(1) = 2 clock cycles per selection).
// Every benchmark evaluates the same batch of events per iteration; scripts/bench-cosim divides the time by
// the `evals` counter. Benchmarks run inside a SystemC thread so the --sc twins can wait for delta cycles.
// Not a test: nothing here asserts a time.
#include <benchmark/benchmark.h>

#include <functional>
#include <systemc>

#include "hw/units/select/unit_set.hpp"
#include "testbenches/rtl/cosim/sc_twin_driver.hpp"
#include "testbenches/rtl/vectors.hpp"

namespace simtlm::cosim {
namespace {

constexpr size_t kBatch = 1024;
constexpr uint32_t kLineShift = 7;

struct Stimulus {
  std::vector<BranchEvent> branches;
  std::vector<LoadEvent> loads;
  std::vector<CompactionEvent> compactions;
  uint64_t compaction_steps = 0;  // loads plus compacted warps: one clock cycle of the RTL each
};

// Random masks of every density and loads clustered on a few blocks, as in the equivalence tests.
Stimulus make_stimulus() {
  rtl_test::VectorSource source(32);
  Stimulus stimulus;
  for (size_t i = 0; i < kBatch; ++i) {
    BranchEvent branch;
    branch.warp = static_cast<uint32_t>(source.below(kScPermutationWarpIds));
    branch.active = static_cast<uint32_t>(source.mask(kScTwinWidth));
    branch.taken = static_cast<uint32_t>(source.mask(kScTwinWidth)) & branch.active;
    stimulus.branches.push_back(branch);

    LoadEvent load;
    load.active = static_cast<uint32_t>(source.mask(kScTwinWidth));
    const uint64_t base = source.bits() & ~uint64_t{0xfff};
    for (uint32_t lane = 0; lane < kScTwinWidth; ++lane) {
      load.address[lane] = base + (source.below(4) << kLineShift) + source.below(uint64_t{1} << kLineShift);
    }
    stimulus.loads.push_back(load);
  }
  hw::PriorityEncoderCompactor counter(kScTwinWidth, kCompactorWarps);
  for (size_t i = 0; i < kBatch / 8; ++i) {
    CompactionEvent compaction;
    for (uint32_t warp = 0; warp < kCompactorWarps; ++warp)
      compaction.warp_masks.push_back(source.mask(kScTwinWidth));
    stimulus.compaction_steps += 1 + hw::compact_all(counter, compaction.warp_masks).size();
    stimulus.compactions.push_back(std::move(compaction));
  }
  return stimulus;
}

const Stimulus& stimulus() {
  static const Stimulus instance = make_stimulus();
  return instance;
}

ScTwins* sc_twins = nullptr;  // built during elaboration by sc_main

void finish(benchmark::State& state, uint64_t evals) {
  state.counters["evals"] = static_cast<double>(evals);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * evals));
}

// --- through the unit interfaces (C++ model, --cc twin, checked) ------------------------------------------

using MajorityFactory = std::function<std::unique_ptr<hw::BranchMajority>()>;
using PermutationFactory = std::function<std::unique_ptr<hw::LanePermutation>()>;
using SelectionFactory = std::function<std::unique_ptr<hw::BlockSelection>()>;
using CompactionFactory = std::function<std::unique_ptr<hw::WarpCompaction>()>;

void majority(benchmark::State& state, const MajorityFactory& make) {
  const auto unit = make();
  for (auto _ : state) {
    for (const BranchEvent& event : stimulus().branches)
      benchmark::DoNotOptimize(unit->vote(event.taken, event.active));
  }
  finish(state, kBatch);
}

void permutation(benchmark::State& state, const PermutationFactory& make) {
  const auto unit = make();
  unit->set_mode(hw::PermutationMode::kBalanced);
  for (auto _ : state) {
    for (const BranchEvent& event : stimulus().branches) {
      benchmark::DoNotOptimize(unit->permute_mask(permutation_warp(event), event.active));
    }
  }
  finish(state, kBatch);
}

void popular_block(benchmark::State& state, const SelectionFactory& make) {
  const auto unit = make();
  for (auto _ : state) {
    for (const LoadEvent& event : stimulus().loads) {
      benchmark::DoNotOptimize(unit->select(event.address, event.active, kLineShift));
    }
  }
  finish(state, kBatch);
}

void compactor(benchmark::State& state, const CompactionFactory& make) {
  const auto unit = make();
  for (auto _ : state) {
    for (const CompactionEvent& event : stimulus().compactions) {
      unit->load(event.warp_masks);
      while (!unit->done()) benchmark::DoNotOptimize(unit->next());
    }
  }
  finish(state, stimulus().compaction_steps);
}

// --- the --sc twins in a SystemC module
// ---------------------------------------------------------------------

void sc_majority(benchmark::State& state) {
  std::vector<hw::BranchVote> out;
  for (auto _ : state) sc_twins->vote(stimulus().branches, out);
  finish(state, kBatch);
}

void sc_permutation(benchmark::State& state) {
  sc_twins->set_permutation_mode(hw::PermutationMode::kBalanced);
  std::vector<uint64_t> out;
  for (auto _ : state) sc_twins->permute(stimulus().branches, out);
  finish(state, kBatch);
}

void sc_popular_block(benchmark::State& state) {
  std::vector<hw::HerdedLoad> out;
  for (auto _ : state) sc_twins->select(stimulus().loads, kLineShift, out);
  finish(state, kBatch);
}

void sc_compactor(benchmark::State& state) {
  std::vector<std::vector<hw::CompactedWarp>> out;
  for (auto _ : state) sc_twins->compact(stimulus().compactions, out);
  finish(state, stimulus().compaction_steps);
}

template <typename Interface>
std::function<std::unique_ptr<Interface>()> checked(
    std::function<std::unique_ptr<Interface>()> model, std::function<std::unique_ptr<Interface>()> twin,
    std::unique_ptr<Interface> (*wrap)(std::unique_ptr<Interface>, std::unique_ptr<Interface>,
                                       const uint64_t*)) {
  return [=] { return wrap(model(), twin(), nullptr); };
}

// Wall time: SystemC may run processes on other host threads, whose CPU time the benchmark would miss.
template <typename... Args>
void add(const char* name, Args&&... args) {
  benchmark::RegisterBenchmark(name, std::forward<Args>(args)...)->UseRealTime();
}

void register_benchmarks() {
  const uint32_t w = kScTwinWidth;
  const MajorityFactory majority_model = [w] { return std::make_unique<hw::MajorityUnit>(w); };
  const MajorityFactory majority_twin = [w] { return hw::make_rtl_majority(w); };
  const PermutationFactory permutation_model = [w] { return std::make_unique<hw::PermutationTable>(w); };
  const PermutationFactory permutation_twin = [w] { return hw::make_rtl_permutation(w); };
  const SelectionFactory selection_model = [w] { return std::make_unique<hw::PopularBlockSelector>(w); };
  const SelectionFactory selection_twin = [w] { return hw::make_rtl_popular_block(w); };
  const CompactionFactory compaction_model = [w] {
    return std::make_unique<hw::PriorityEncoderCompactor>(w, kCompactorWarps);
  };
  const CompactionFactory compaction_twin = [w] { return hw::make_rtl_compactor(w, kCompactorWarps); };

  // Names: <unit>/<backend>; scripts/bench-cosim builds its table from them.
  add("majority/cpp", majority, majority_model);
  add("majority/cc", majority, majority_twin);
  add("majority/check", majority,
      checked<hw::BranchMajority>(majority_model, majority_twin, hw::make_checked_majority));
  add("majority/sc", sc_majority);
  add("permutation/cpp", permutation, permutation_model);
  add("permutation/cc", permutation, permutation_twin);
  add("permutation/check", permutation,
      checked<hw::LanePermutation>(permutation_model, permutation_twin, hw::make_checked_permutation));
  add("permutation/sc", sc_permutation);
  add("compactor/cpp", compactor, compaction_model);
  add("compactor/cc", compactor, compaction_twin);
  add("compactor/check", compactor,
      checked<hw::WarpCompaction>(compaction_model, compaction_twin, hw::make_checked_compactor));
  add("compactor/sc", sc_compactor);
  add("popular_block/cpp", popular_block, selection_model);
  add("popular_block/cc", popular_block, selection_twin);
  add("popular_block/check", popular_block,
      checked<hw::BlockSelection>(selection_model, selection_twin, hw::make_checked_popular_block));
  add("popular_block/sc", sc_popular_block);
}

// Runs the registered benchmarks from inside the simulation, after the twins are reset.
class BenchmarkRunner : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(BenchmarkRunner);
  explicit BenchmarkRunner(const sc_core::sc_module_name& name) : sc_core::sc_module(name), twins_("twins") {
    sc_twins = &twins_;
    SC_THREAD(run);
    set_stack_size(64 << 20);  // the benchmark library runs on this thread's stack
  }

 private:
  void run() {
    twins_.reset();
    benchmark::RunSpecifiedBenchmarks();
    sc_core::sc_stop();
  }
  ScTwins twins_;
};

}  // namespace
}  // namespace simtlm::cosim

int sc_main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  simtlm::cosim::register_benchmarks();
  simtlm::cosim::BenchmarkRunner runner("bench");
  sc_core::sc_start();
  benchmark::Shutdown();
  return 0;
}
