#pragma once
// The rows of one SM's parameters in reference order (gpu.*_per_sm, core.*, its stack's, compaction.*, lsu.*
// with its load/store unit's limits) and its checks; plain C++, read by sm_params() (hw/sc/sm_params.hpp).
#include "hw/divergence/mechanism.hpp"
#include "hw/lsu_limits.hpp"
#include "hw/stack_schema.hpp"
#include "models/config/config_section.hpp"

namespace simtlm::hw {

inline config::ParamRows sm_rows() {
  using K = config::ParamSpec::Kind;
  config::ParamRows rows = {
      {"gpu.max_threads_per_sm", K::unsigned_int, "1024", 32, 1 << 16, {}, "resident threads per SM"},
      {"gpu.max_warps_per_sm", K::unsigned_int, "32", 1, 1024, {}, "warp slots per SM"},
      {"gpu.max_ctas_per_sm", K::unsigned_int, "8", 1, 256, {}, "resident CTAs per SM"},
      {"gpu.registers_per_sm", K::unsigned_int, "65536", 1, 1 << 24, {}, "32-bit registers per SM"},
      {"gpu.registers_per_thread",
       K::unsigned_int,
       "0",
       0,
       255,
       {},
       "registers a thread reserves; 0 = the most 32-bit PTX register words live at once (liveness), at most "
       "63"},
      {"gpu.shared_bytes_per_sm", K::unsigned_int, "49152", 0, 1 << 24, {}, "shared memory per SM, bytes"},
      {"core.warp_size", K::unsigned_int, "32", 32, 32, {}, "threads per warp (PTX fixes it at 32)"},
      {"core.simd_width",
       K::unsigned_int,
       "32",
       8,
       64,
       {},
       "lanes of the SIMD pipeline (the majority, permutation and compaction units exist at 8 to 64 lanes)",
       true},
      {"core.issue_width", K::unsigned_int, "1", 1, 8, {}, "warp instructions issued per SM per cycle"},
      {"core.scheduler",
       K::choice,
       "lrr",
       0,
       0,
       {"lrr", "gto", "srr", "two_level"},
       "warp scheduler: loose round-robin, greedy-then-oldest, sticky round-robin, two-level"},
      {"core.two_level_active_warps",
       K::unsigned_int,
       "8",
       1,
       1024,
       {},
       "active set size of the two-level scheduler"},
      {"core.pipelines.int.latency", K::unsigned_int, "4", 1, 1000, {}, "integer pipeline latency, cycles"},
      {"core.pipelines.int.initiation_interval",
       K::unsigned_int,
       "1",
       1,
       64,
       {},
       "cycles between integer issues"},
      {"core.pipelines.float.latency", K::unsigned_int, "4", 1, 1000, {}, "f32 pipeline latency"},
      {"core.pipelines.float.initiation_interval",
       K::unsigned_int,
       "1",
       1,
       64,
       {},
       "cycles between f32 issues"},
      {"core.pipelines.double.latency", K::unsigned_int, "8", 1, 1000, {}, "f64 pipeline latency"},
      {"core.pipelines.double.initiation_interval",
       K::unsigned_int,
       "4",
       1,
       64,
       {},
       "cycles between f64 issues"},
      {"core.pipelines.sfu.latency", K::unsigned_int, "20", 1, 1000, {}, "special-function latency"},
      {"core.pipelines.sfu.initiation_interval",
       K::unsigned_int,
       "8",
       1,
       64,
       {},
       "cycles between SFU issues"},
      {"core.pipelines.memory.latency",
       K::unsigned_int,
       "4",
       1,
       1000,
       {},
       "address generation before the LSU"},
      {"core.pipelines.memory.initiation_interval",
       K::unsigned_int,
       "1",
       1,
       64,
       {},
       "cycles between memory issues"},
      {"core.pipelines.branch.latency", K::unsigned_int, "2", 1, 1000, {}, "branch unit latency"},
      {"core.pipelines.branch.initiation_interval",
       K::unsigned_int,
       "1",
       1,
       64,
       {},
       "cycles between branches"},
      {"core.switch_on_memory",
       K::boolean,
       "false",
       0,
       0,
       {},
       "a warp that issues a global or local access issues nothing more until every request of it is "
       "answered "
       "(MV5's WPU switches warps on every cache access; robust-simd.txt, Section V-A)"},
      {"core.dcache_banks",
       K::unsigned_int,
       "0",
       0,
       64,
       {},
       "0: the requests of a warp instruction leave one per cycle; N: the L1 is banked N ways by line, "
       "requests to different banks leave together and each further request to a bank costs a cycle; in task "
       "mode 0 means one bank per lane (wpu.width)"},
  };
  for (const config::ParamSpec& row : stack_rows()) rows.push_back(row);
  const config::ParamRows compaction_and_lsu = {
      {"divergence.unit", K::choice, "warp_stacks", 0, 0, divergence_unit_names(),
       "the SM's divergence unit: warp_stacks: a reconvergence stack per warp (stack.*); tbc: thread block "
       "compaction (CTA-wide stack, priority-encoder compactor, each thread in its home lane); ideal: any "
       "thread in any lane; capri: tbc where a warp at a branch predicted not to gain from compaction goes "
       "on "
       "without its CTA, on its own stack if its threads split; warp_slices: task mode on the warp-slices of "
       "Robust SIMD (wpu.*); or a unit registered by name (hw/divergence/unit_registry.hpp)"},
      {"compaction.mechanism",
       K::choice,
       "none",
       0,
       0,
       {"none", "tbc", "ideal", "capri"},
       "deprecated: divergence.unit (none: warp_stacks)",
       false,
       "divergence.unit",
       [](const std::string& value, const std::string& now) -> std::string {
         if (value != "none") return value;
         return now == "warp_slices" ? "" : "warp_stacks";
       }},
      {"compaction.permutation",
       K::choice,
       "identity",
       0,
       0,
       {"identity", "balanced", "odd_even", "xor_half", "random", "wid", "rev_wid", "flip_odd",
        "rotate_odd_1"},
       "SIMD lane permutation giving each thread its home lane under tbc (docs/slp.md)"},
      {"compaction.seed",
       K::unsigned_int,
       "1",
       0,
       config::kLargestParam,
       {},
       "seed of the random permutation"},
      {"compaction.slp_disable",
       K::boolean,
       "false",
       0,
       0,
       {},
       "the per-kernel SLP disable bit: home lanes stay the logical lanes whatever the permutation"},
      {"compaction.formation_cycles",
       K::unsigned_int,
       "1",
       0,
       64,
       {},
       "cycles per warp the compactor emits after a CTA-wide branch or reconvergence point"},
      {"compaction.capri_table_entries",
       K::unsigned_int,
       "32",
       1,
       4096,
       {},
       "entries of CAPRI's compaction-adequacy prediction table (direct-mapped on the branch's instruction "
       "index; valid bit, tag and one history bit each; docs/slp.md, \"CAPRI\")"},
      {"compaction.capri_miss",
       K::choice,
       "adequate",
       0,
       0,
       {"adequate", "not_adequate"},
       "CAPRI's prediction for a branch its table does not hold: adequate (the warps wait and the table "
       "learns "
       "from a real compaction) or not_adequate (they go on; the table learns from the round of outcomes)"},
      {"compaction.capri_clear",
       K::choice,
       "kernel",
       0,
       0,
       {"kernel", "never"},
       "when CAPRI's table empties: at each kernel of a launch sequence (its PCs mean other branches) or "
       "never"},
      {"lsu.segment_bytes",
       K::choice,
       "128",
       0,
       0,
       {"32", "64", "128"},
       "coalescing segment size (the sectors rule's)"},
      {"lsu.coalescing",
       K::choice,
       "sectors",
       0,
       0,
       {"sectors", "compute13"},
       "how a warp's global and local addresses become requests: sectors = one request per "
       "`lsu.segment_bytes` segment the warp touches, carrying the 32-byte sectors its lanes touch; "
       "compute13 = the CUDA compute capability 1.2/1.3 rule: per half-warp, the segment of the lowest "
       "pending lane (32 B for 1-byte words, 64 B for 2-byte, 128 B for wider) halved while the lanes it "
       "serves fit in its lower or upper half, moved whole, repeated until every lane is served"},
      {"lsu.herding_selector_rounds",
       K::unsigned_int,
       "1",
       1,
       32,
       {},
       "the coalescer's popular-block selector for data herding (rtl/popular_block_selector.v, parameter "
       "ROUNDS) compares herding.group_lanes / ROUNDS lanes per cycle; a herded load costs its latency, "
       "ROUNDS + 1 cycles, unless the launch file's herding.load_cycles (or --herd-load-cycles) gives "
       "another; must divide herding.group_lanes; docs/area-timing/ gives its area and period per ROUNDS",
       true},
      {"lsu.shared_latency", K::unsigned_int, "20", 1, 1000, {}, "shared-memory access latency, cycles"},
      {"lsu.shared_banks", K::unsigned_int, "32", 1, 64, {}, "shared-memory banks (4-byte wide)"},
  };
  rows.insert(rows.end(), compaction_and_lsu.begin(), compaction_and_lsu.end());
  for (const config::ParamSpec& row : lsu_limit_rows()) rows.push_back(row);
  return rows;
}

inline void check_sm(const config::MachineConfig& config) {
  check_stack(config::ConfigSection(config, "stack"));
}

}  // namespace simtlm::hw
